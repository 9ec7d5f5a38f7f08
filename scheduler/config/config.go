package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"sigs.k8s.io/yaml"
)

// Config is a KubeSchedulerConfiguration read from a file, with
// kube-scheduler's defaults applied and validated.
type Config struct {
	// Source names where it came from (a file name, or a scenario's).
	Source string
	// KubeSchedulerConfiguration is the configuration, defaulted: every
	// profile has its schedulerName, its merged plugins and a pluginConfig
	// entry, with decoded and defaulted args (PluginConfig.Args.Object),
	// for each enabled plugin that takes args.
	KubeSchedulerConfiguration configv1.KubeSchedulerConfiguration
	// Extenders are the configuration's extenders, validated
	// (scheduler.ValidateExtenders): scheduler.NewExtenders turns them
	// into the HTTP extenders a cycle asks.
	Extenders []configv1.Extender
}

// Load reads the KubeSchedulerConfiguration in the file path (YAML or
// JSON), as kube-scheduler's --config does.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading scheduler configuration: %w", err)
	}
	return Decode(data, path)
}

// Default is the configuration kube-scheduler runs without a file: one
// default-scheduler profile with the default plugins.
func Default() *Config {
	var kc configv1.KubeSchedulerConfiguration
	kc.APIVersion, kc.Kind = configv1.SchemeGroupVersion.String(), "KubeSchedulerConfiguration"
	SetDefaults(&kc)
	return &Config{Source: "(default)", KubeSchedulerConfiguration: kc}
}

// Decode parses data, a KubeSchedulerConfiguration of
// kubescheduler.config.k8s.io/v1 in YAML or JSON, applies kube-scheduler's
// defaults and validates it. source names the data in errors (a file
// name); a syntax error gives the decoder's line.
func Decode(data []byte, source string) (*Config, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	var tm metav1.TypeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return nil, fmt.Errorf("%s: not a KubeSchedulerConfiguration: %w", source, err)
	}
	switch {
	case tm.Kind == "":
		return nil, fmt.Errorf("%s: Object 'Kind' is missing", source)
	case tm.APIVersion == "":
		return nil, fmt.Errorf("%s: Object 'apiVersion' is missing", source)
	case tm.APIVersion != configv1.SchemeGroupVersion.String() || tm.Kind != "KubeSchedulerConfiguration":
		return nil, fmt.Errorf("%s: no kind %q is registered for version %q (want kind KubeSchedulerConfiguration of %s)",
			source, tm.Kind, tm.APIVersion, configv1.SchemeGroupVersion)
	}
	var kc configv1.KubeSchedulerConfiguration
	if err := strictDecode(js, &kc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if err := decodePluginArgs(&kc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	SetDefaults(&kc)
	if err := Validate(&kc); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return &Config{Source: source, KubeSchedulerConfiguration: kc, Extenders: kc.Extenders}, nil
}

// strictDecode decodes data into into, refusing fields into does not
// have, as kube-scheduler's strict codec does.
func strictDecode(data []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("strict decoding error: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// newArgs returns an empty args object of the in-tree plugin name, nil for
// a plugin that takes none (or one this package does not know: its args
// stay raw, for its factory).
func newArgs(name string) runtime.Object {
	switch name {
	case "DefaultPreemption":
		return &configv1.DefaultPreemptionArgs{}
	case "InterPodAffinity":
		return &configv1.InterPodAffinityArgs{}
	case "NodeAffinity":
		return &configv1.NodeAffinityArgs{}
	case "NodeResourcesBalancedAllocation":
		return &configv1.NodeResourcesBalancedAllocationArgs{}
	case "NodeResourcesFit":
		return &configv1.NodeResourcesFitArgs{}
	case "PodTopologySpread":
		return &configv1.PodTopologySpreadArgs{}
	case "VolumeBinding":
		return &configv1.VolumeBindingArgs{}
	case "DynamicResources":
		return &configv1.DynamicResourcesArgs{}
	}
	return nil
}

// decodePluginArgs decodes each pluginConfig's args into its plugin's
// args type (NodeResourcesFit's into NodeResourcesFitArgs...), strictly,
// as kube-scheduler's DecodeNestedObjects does.
func decodePluginArgs(kc *configv1.KubeSchedulerConfiguration) error {
	for i := range kc.Profiles {
		for j := range kc.Profiles[i].PluginConfig {
			pc := &kc.Profiles[i].PluginConfig[j]
			args := newArgs(pc.Name)
			if args == nil || len(pc.Args.Raw) == 0 {
				continue
			}
			path := fmt.Sprintf(".profiles[%d].pluginConfig[%d]", i, j)
			var tm metav1.TypeMeta
			if err := json.Unmarshal(pc.Args.Raw, &tm); err != nil {
				return fmt.Errorf("decoding %s: %w", path, err)
			}
			want := pc.Name + "Args"
			if (tm.Kind != "" && tm.Kind != want) || (tm.APIVersion != "" && tm.APIVersion != configv1.SchemeGroupVersion.String()) {
				return fmt.Errorf("decoding %s: args of kind %q of %q, want %s of %s", path, tm.Kind, tm.APIVersion, want, configv1.SchemeGroupVersion)
			}
			if err := strictDecode(pc.Args.Raw, args); err != nil {
				return fmt.Errorf("decoding %s: %w", path, err)
			}
			args.GetObjectKind().SetGroupVersionKind(configv1.SchemeGroupVersion.WithKind(want))
			pc.Args = runtime.RawExtension{Object: args}
		}
	}
	return nil
}
