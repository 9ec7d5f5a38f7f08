// Command steward-operator runs the Steward controller and its webhooks,
// the program `kubebuilder init` scaffolds as cmd/main.go. It reads the
// cluster from KUBECONFIG (or --kubeconfig), as `make run` / `go run .`
// does against kubesim:
//
//	kubesim serve --data-dir /tmp/ks &
//	KUBECONFIG=/tmp/ks/kubeconfig go run . --webhook-cert-dir=/tmp/certs
//
// Without --webhook-cert-dir the webhook server is not started (the
// controller alone).
package main

import (
	"flag"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	oamv1 "github.com/kubesim/kubesim/examples/steward-operator/api/v1"
	"github.com/kubesim/kubesim/examples/steward-operator/internal/controller"
	webhookv1 "github.com/kubesim/kubesim/examples/steward-operator/internal/webhook/v1"
)

func main() {
	var certDir, webhookHost, metricsAddr, probeAddr string
	var webhookPort int
	flag.StringVar(&certDir, "webhook-cert-dir", "", "directory with tls.crt and tls.key for the webhook server (empty: no webhooks)")
	flag.StringVar(&webhookHost, "webhook-host", "127.0.0.1", "address the webhook server listens on")
	flag.IntVar(&webhookPort, "webhook-port", 9443, "port of the webhook server")
	flag.StringVar(&metricsAddr, "metrics-bind-address", "0", "metrics endpoint address (0: off)")
	flag.StringVar(&probeAddr, "health-probe-bind-address", "0", "health probe address (0: off)")
	opts := zap.Options{Development: true}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(zap.New(zap.UseFlagOptions(&opts)))
	log := ctrl.Log.WithName("setup")

	if err := run(certDir, webhookHost, webhookPort, metricsAddr, probeAddr); err != nil {
		log.Error(err, "steward-operator")
		os.Exit(1)
	}
}

func run(certDir, webhookHost string, webhookPort int, metricsAddr, probeAddr string) error {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return err
	}
	if err := oamv1.AddToScheme(scheme); err != nil {
		return err
	}
	mopts := ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: metricsAddr},
		HealthProbeBindAddress: probeAddr,
	}
	if certDir != "" {
		mopts.WebhookServer = webhook.NewServer(webhook.Options{Host: webhookHost, Port: webhookPort, CertDir: certDir})
	}
	mgr, err := ctrl.NewManager(ctrl.GetConfigOrDie(), mopts)
	if err != nil {
		return err
	}
	if err := (&controller.StewardReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr); err != nil {
		return err
	}
	if certDir != "" {
		if err := webhookv1.SetupStewardWebhookWithManager(mgr); err != nil {
			return err
		}
	}
	return mgr.Start(ctrl.SetupSignalHandler())
}
