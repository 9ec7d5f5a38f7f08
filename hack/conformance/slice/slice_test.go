package slice

import (
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/component-base/logs"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"

	// The SIG packages whose specs specs.txt may name. Each registers its
	// specs when imported; nothing else of the suite is compiled.
	_ "k8s.io/kubernetes/test/e2e/apimachinery"
	_ "k8s.io/kubernetes/test/e2e/common/node"

	// What test/e2e's own main imports for every run: the framework's
	// debug dumps on failure and its node helpers.
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
)

// TestMain registers the e2e flags (--kubeconfig, --provider, ...) as
// test/e2e's does.
func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	framework.AfterReadingAllFlags(&framework.TestContext)
	os.Exit(m.Run())
}

// TestConformanceSlice runs the specs the focus selects, as test/e2e's
// RunE2ETests does, against the cluster of --kubeconfig.
func TestConformanceSlice(t *testing.T) {
	if framework.TestContext.KubeConfig == "" {
		t.Fatal("no --kubeconfig: the slice runs against a cluster; go run ./hack/conformance -slice starts one")
	}
	logs.InitLogs()
	defer logs.FlushLogs()
	klog.EnableContextualLogging(true)
	gomega.RegisterFailHandler(framework.Fail)
	suiteConfig, reporterConfig := framework.CreateGinkgoConfig()
	ginkgo.RunSpecs(t, "kubesim conformance slice", suiteConfig, reporterConfig)
}
