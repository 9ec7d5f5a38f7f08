package operators

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/unstructured"
	"github.com/kubesim/kubesim/client"
)

// CustomResourceDefinitionsResource is apiextensions.k8s.io/v1
// customresourcedefinitions.
var CustomResourceDefinitionsResource = client.ResourceInfo{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// DecodeYAML splits a multi-document YAML stream into objects.
func DecodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*unstructured.Unstructured
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if doc == nil {
			continue
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := json.Unmarshal(raw, u); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
}

// InstallCRDs creates the CRDs of a YAML stream; one that exists already
// is left as it is.
func InstallCRDs(ctx context.Context, cl *client.Client, crdYAML []byte) error {
	objs, err := DecodeYAML(crdYAML)
	if err != nil {
		return err
	}
	res := client.Dynamic(cl, CustomResourceDefinitionsResource)
	for _, o := range objs {
		if _, err := res.Create(ctx, o); err != nil && !api.IsAlreadyExists(err) {
			return fmt.Errorf("creating CustomResourceDefinition %s: %w", o.Name, err)
		}
	}
	return nil
}
