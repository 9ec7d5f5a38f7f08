package images

// The simulated registries' contents: the repositories, tags and sizes a
// pull finds (docs/containers.md lists them). A tag missing here does not
// exist, as nginx:doesnotexist does not on Docker Hub. The table says
// nothing of what an image runs: that is the kubelet's program.go.
//
// Sizes are those containerd reports for linux/amd64 (compressed
// layers), rounded; digests are kubesim's own (see Repository.digest),
// not the registries'.

// The hosts of the simulated registries.
const (
	// DockerHub is Docker Hub's registry, where a name without a host
	// is looked up (nginx is docker.io/library/nginx).
	DockerHub = "docker.io"
	// PrivateRegistry is a registry that serves nothing without
	// credentials: the "pull an image from a private registry" exercise.
	PrivateRegistry = "registry.kubesim.io"
)

// The account of the private registry and of Docker Hub's private
// repository (kubesim/private-app): `kubectl create secret
// docker-registry regcred --docker-server=registry.kubesim.io
// --docker-username=student --docker-password=kubesim`.
const (
	PrivateUsername = "student"
	PrivatePassword = "kubesim"
)

// Registry hosts that answer. A host not listed here does not resolve
// (a pull from it fails with "no such host", as from a cluster with no
// route to it); localhost refuses the connection.
var knownHosts = []Host{
	{Name: DockerHub},
	{Name: "registry.k8s.io"},
	{Name: "k8s.gcr.io"},
	{Name: "gcr.io"},
	{Name: "us-docker.pkg.dev"},
	{Name: "quay.io"},
	{Name: "ghcr.io"},
	{Name: "oci.external-secrets.io"},
	{Name: "reg.kyverno.io"},
	{Name: PrivateRegistry, Private: true},
}

// tags is a shorthand for one image's tags.
func tags(t ...string) []string { return t }

// catalog is the registries' contents.
var catalog = []Repository{
	// Docker Hub's official images (docker.io/library).
	{Name: "docker.io/library/nginx", Images: []Image{
		{Tags: tags("latest", "1", "1.29", "1.29.1", "mainline"), Size: 72_318_011},
		{Tags: tags("1.28", "1.28.0", "stable"), Size: 72_225_118},
		{Tags: tags("1.27", "1.27.5"), Size: 68_857_691},
		{Tags: tags("1.26", "1.26.3"), Size: 71_029_448},
		{Tags: tags("1.25", "1.25.5"), Size: 70_544_321},
		{Tags: tags("1.24", "1.24.0"), Size: 56_724_372},
		{Tags: tags("1.23", "1.23.4"), Size: 56_990_470},
		{Tags: tags("1.21", "1.21.6"), Size: 54_110_912},
		{Tags: tags("1.19", "1.19.10"), Size: 53_603_841},
		{Tags: tags("1.16.1"), Size: 51_030_575},
		{Tags: tags("1.16.0"), Size: 51_012_317},
		{Tags: tags("1.14.2"), Size: 44_708_492},
		{Tags: tags("1.7.9"), Size: 39_947_234},
		{Tags: tags("alpine", "1.29-alpine", "mainline-alpine"), Size: 20_843_215},
		{Tags: tags("stable-alpine", "1.28-alpine"), Size: 20_522_306},
		{Tags: tags("1.27-alpine"), Size: 20_319_884},
		{Tags: tags("1.25-alpine"), Size: 17_812_561},
	}},
	{Name: "docker.io/library/busybox", Images: []Image{
		{Tags: tags("latest", "1", "1.37", "1.37.0", "stable"), Size: 2_211_475},
		{Tags: tags("1.36", "1.36.1"), Size: 2_155_983},
		{Tags: tags("1.35", "1.35.0"), Size: 2_081_396},
		{Tags: tags("1.34", "1.34.1"), Size: 2_002_114},
		{Tags: tags("1.28", "1.28.4"), Size: 727_869},
	}},
	{Name: "docker.io/library/alpine", Images: []Image{
		{Tags: tags("latest", "3", "3.22"), Size: 3_799_231},
		{Tags: tags("3.21"), Size: 3_642_881},
		{Tags: tags("3.20"), Size: 3_625_702},
		{Tags: tags("3.19"), Size: 3_419_706},
		{Tags: tags("3.18"), Size: 3_401_613},
	}},
	{Name: "docker.io/library/ubuntu", Images: []Image{
		{Tags: tags("latest", "24.04", "noble"), Size: 29_754_289},
		{Tags: tags("22.04", "jammy"), Size: 29_537_361},
		{Tags: tags("20.04", "focal"), Size: 27_508_853},
	}},
	{Name: "docker.io/library/debian", Images: []Image{
		{Tags: tags("latest", "trixie", "13"), Size: 49_282_035},
		{Tags: tags("bookworm", "12"), Size: 48_494_272},
		{Tags: tags("bookworm-slim", "12-slim", "stable-slim"), Size: 28_227_259},
		{Tags: tags("bullseye", "11"), Size: 53_739_751},
	}},
	{Name: "docker.io/library/centos", Images: []Image{{Tags: tags("latest", "7"), Size: 72_625_303}}},
	{Name: "docker.io/library/fedora", Images: []Image{
		{Tags: tags("latest", "42"), Size: 62_134_210},
		{Tags: tags("41"), Size: 61_210_332},
	}},
	{Name: "docker.io/library/rockylinux", Images: []Image{
		{Tags: tags("9", "9.3"), Size: 69_124_301},
		{Tags: tags("8", "8.9"), Size: 74_810_559},
	}},
	{Name: "docker.io/library/almalinux", Images: []Image{
		{Tags: tags("latest", "9"), Size: 66_418_205},
		{Tags: tags("8"), Size: 72_013_441},
	}},
	{Name: "docker.io/library/bash", Images: []Image{{Tags: tags("latest", "5", "5.2"), Size: 6_070_129}}},
	{Name: "docker.io/library/hello-world", Images: []Image{{Tags: tags("latest"), Size: 3_208}}},
	{Name: "docker.io/library/redis", Images: []Image{
		{Tags: tags("latest", "8", "8.2"), Size: 49_013_442},
		{Tags: tags("7", "7.4"), Size: 45_112_087},
		{Tags: tags("7.2"), Size: 44_027_318},
		{Tags: tags("6", "6.2", "6.0.5"), Size: 40_175_219},
		{Tags: tags("alpine", "8-alpine"), Size: 16_208_734},
		{Tags: tags("7-alpine"), Size: 15_911_662},
	}},
	{Name: "docker.io/library/postgres", Images: []Image{
		{Tags: tags("latest", "17"), Size: 158_042_906},
		{Tags: tags("16"), Size: 156_402_516},
		{Tags: tags("15"), Size: 150_524_113},
		{Tags: tags("16-alpine"), Size: 104_015_637},
	}},
	{Name: "docker.io/library/mysql", Images: []Image{
		{Tags: tags("latest", "9"), Size: 170_112_304},
		{Tags: tags("8", "8.4"), Size: 168_274_920},
		{Tags: tags("8.0"), Size: 165_733_185},
		{Tags: tags("5.7"), Size: 137_415_028},
		{Tags: tags("5.6"), Size: 100_318_611},
	}},
	{Name: "docker.io/library/mariadb", Images: []Image{{Tags: tags("latest", "11"), Size: 115_512_730}}},
	{Name: "docker.io/library/mongo", Images: []Image{
		{Tags: tags("latest", "8"), Size: 262_118_406},
		{Tags: tags("7"), Size: 251_620_771},
		{Tags: tags("4.2", "4.2.24"), Size: 145_372_810},
	}},
	{Name: "docker.io/library/memcached", Images: []Image{{Tags: tags("latest", "1.6"), Size: 35_120_450}}},
	{Name: "docker.io/library/rabbitmq", Images: []Image{
		{Tags: tags("latest", "4"), Size: 100_215_333},
		{Tags: tags("management", "3-management"), Size: 110_431_209},
	}},
	{Name: "docker.io/library/httpd", Images: []Image{
		{Tags: tags("latest", "2", "2.4"), Size: 58_209_641},
		{Tags: tags("alpine", "2.4-alpine"), Size: 22_014_538},
	}},
	{Name: "docker.io/library/traefik", Images: []Image{{Tags: tags("latest", "v3"), Size: 50_214_307}}},
	{Name: "docker.io/library/haproxy", Images: []Image{{Tags: tags("latest", "3.0"), Size: 40_118_925}}},
	{Name: "docker.io/library/caddy", Images: []Image{{Tags: tags("latest", "2"), Size: 20_411_376}}},
	{Name: "docker.io/library/registry", Images: []Image{{Tags: tags("latest", "2"), Size: 9_812_443}}},
	{Name: "docker.io/library/wordpress", Images: []Image{
		{Tags: tags("latest"), Size: 250_118_733},
		{Tags: tags("6.2.1-apache"), Size: 240_327_564},
	}},
	{Name: "docker.io/library/perl", Images: []Image{
		{Tags: tags("latest", "5", "5.40"), Size: 338_101_472},
		{Tags: tags("5.34.0", "5.34"), Size: 336_374_211},
	}},
	{Name: "docker.io/library/python", Images: []Image{
		{Tags: tags("latest", "3", "3.13"), Size: 402_611_950},
		{Tags: tags("3.12"), Size: 380_217_366},
		{Tags: tags("3.11"), Size: 370_412_208},
		{Tags: tags("slim", "3.13-slim"), Size: 41_522_310},
		{Tags: tags("3.12-slim"), Size: 41_110_675},
	}},
	{Name: "docker.io/library/node", Images: []Image{
		{Tags: tags("latest", "22", "lts"), Size: 395_420_118},
		{Tags: tags("20"), Size: 380_613_007},
		{Tags: tags("alpine", "22-alpine"), Size: 55_312_440},
		{Tags: tags("20-alpine"), Size: 54_008_116},
	}},
	{Name: "docker.io/library/golang", Images: []Image{
		{Tags: tags("latest", "1.24"), Size: 300_225_818},
		{Tags: tags("1.23"), Size: 290_411_302},
	}},

	// Other Docker Hub repositories courses use.
	{Name: "docker.io/fluent/fluent-bit", Images: []Image{
		{Tags: tags("latest", "4.0"), Size: 36_118_560},
		{Tags: tags("3.2"), Size: 35_402_981},
		{Tags: tags("3.1"), Size: 35_210_774},
		{Tags: tags("3.0"), Size: 34_995_126},
	}},
	{Name: "docker.io/curlimages/curl", Images: []Image{{Tags: tags("latest", "8.15.0"), Size: 10_217_552}}},
	{Name: "docker.io/nicolaka/netshoot", Images: []Image{{Tags: tags("latest"), Size: 182_417_219}}},
	{Name: "docker.io/radial/busyboxplus", Images: []Image{{Tags: tags("curl"), Size: 2_128_512}}},
	{Name: "docker.io/jocatalin/kubernetes-bootcamp", Images: []Image{
		{Tags: tags("v2"), Size: 75_410_212},
		{Tags: tags("v1"), Size: 75_410_118},
	}},
	{Name: "docker.io/hashicorp/http-echo", Images: []Image{
		{Tags: tags("latest", "1.0", "1.0.0"), Size: 3_601_441},
		{Tags: tags("0.2.3"), Size: 2_630_411},
	}},
	{Name: "docker.io/envoyproxy/envoy", Images: []Image{
		{Tags: tags("v1.31-latest", "v1.31.0"), Size: 64_331_070},
		{Tags: tags("v1.30-latest", "v1.30.1"), Size: 63_804_227},
	}},

	// kubesim's own images, built into kubesim: every tag is there.
	{Name: "docker.io/kubesim/sleep", AnyTag: true, Images: []Image{{Size: 1_204_224}}},
	{Name: "docker.io/kubesim/fail", AnyTag: true, Images: []Image{{Size: 1_204_224}}},
	{Name: "docker.io/kubesim/extension-apiserver", AnyTag: true, Images: []Image{{Size: 24_117_248}}},
	{Name: "docker.io/kubesim/metrics-server", AnyTag: true, Images: []Image{{Size: 21_037_056}}},
	{Name: "docker.io/kubesim/webhook", AnyTag: true, Images: []Image{{Size: 12_582_912}}},
	{Name: "docker.io/kubesim/controller", AnyTag: true, Images: []Image{{Size: 18_874_368}}},
	// A private repository on Docker Hub: it needs the account's
	// credentials (a secret for https://index.docker.io/v1/, kubectl's
	// default --docker-server).
	{Name: "docker.io/kubesim/private-app", Private: true, Images: []Image{
		{Tags: tags("latest", "1.0"), Size: 5_242_880},
	}},

	// registry.k8s.io: Kubernetes' own images and the documentation's.
	{Name: "registry.k8s.io/pause", Images: []Image{
		{Tags: tags("3.10"), Size: 320_368},
		{Tags: tags("3.9"), Size: 321_520},
		{Tags: tags("3.8"), Size: 311_286}, // "Configure Multiple Schedulers"' pods
	}},
	{Name: "registry.k8s.io/busybox", Images: []Image{{Tags: tags("latest", "1.27", "1.27.2"), Size: 1_144_547}}},
	{Name: "registry.k8s.io/serve_hostname", Images: []Image{{Tags: tags("latest", "v1.4"), Size: 2_122_752}}},
	{Name: "registry.k8s.io/liveness", Images: []Image{{Tags: tags("latest"), Size: 4_945_130}}},
	{Name: "registry.k8s.io/goproxy", Images: []Image{{Tags: tags("0.1"), Size: 5_082_404}}},
	{Name: "registry.k8s.io/echoserver", Images: []Image{
		{Tags: tags("1.10"), Size: 46_231_720},
		{Tags: tags("1.4"), Size: 44_119_286},
	}},
	{Name: "registry.k8s.io/hpa-example", Images: []Image{{Tags: tags("latest"), Size: 181_214_337}}},
	{Name: "registry.k8s.io/nginx-slim", Images: []Image{
		{Tags: tags("0.27"), Size: 41_217_001},
		{Tags: tags("0.24"), Size: 41_011_874},
		{Tags: tags("0.21"), Size: 40_112_337},
		{Tags: tags("0.8"), Size: 20_318_502},
	}},
	{Name: "registry.k8s.io/e2e-test-images/agnhost", Images: []Image{
		{Tags: tags("2.53"), Size: 51_416_312},
		{Tags: tags("2.52"), Size: 51_322_805},
		{Tags: tags("2.50"), Size: 51_102_544},
		{Tags: tags("2.47"), Size: 50_714_211},
		{Tags: tags("2.45"), Size: 50_622_490},
		{Tags: tags("2.43"), Size: 50_410_117},
		{Tags: tags("2.40"), Size: 50_217_683},
		{Tags: tags("2.39"), Size: 50_118_204},
	}},
	// The images Kubernetes' conformance suite (test/e2e, v1.32) runs
	// beside agnhost: its own builds of busybox, httpd and nginx, which
	// behave as the images of those names do.
	{Name: "registry.k8s.io/e2e-test-images/busybox", Images: []Image{{Tags: tags("1.36.1-1", "1.29-4"), Size: 2_217_381}}},
	{Name: "registry.k8s.io/e2e-test-images/httpd", Images: []Image{
		{Tags: tags("2.4.39-4"), Size: 44_811_302},
		{Tags: tags("2.4.38-4"), Size: 44_523_915},
	}},
	{Name: "registry.k8s.io/e2e-test-images/nginx", Images: []Image{
		{Tags: tags("1.15-4"), Size: 6_702_113},
		{Tags: tags("1.14-4"), Size: 6_530_440},
	}},
	{Name: "registry.k8s.io/e2e-test-images/jessie-dnsutils", Images: []Image{
		{Tags: tags("1.7"), Size: 124_408_776},
		{Tags: tags("1.3"), Size: 76_416_290},
	}},
	{Name: "registry.k8s.io/kubectl", Images: []Image{
		{Tags: tags("v1.32.7"), Size: 19_117_250},
		{Tags: tags("v1.32.0"), Size: 19_021_334},
	}},
	{Name: "registry.k8s.io/coredns/coredns", Images: []Image{{Tags: tags("v1.11.3"), Size: 18_562_039}}},
	{Name: "registry.k8s.io/metrics-server/metrics-server", Images: []Image{
		{Tags: tags("v0.8.0"), Size: 20_582_732},
		{Tags: tags("v0.7.2"), Size: 19_494_617},
		{Tags: tags("v0.7.1"), Size: 19_408_112},
	}},
	{Name: "registry.k8s.io/autoscaling/addon-resizer", Images: []Image{{Tags: tags("1.8.23"), Size: 9_512_004}}},
	{Name: "registry.k8s.io/external-dns/external-dns", Images: []Image{
		{Tags: tags("v0.19.0"), Size: 33_718_205},
		{Tags: tags("v0.18.0"), Size: 33_410_662},
	}},
	{Name: "registry.k8s.io/ingress-nginx/controller", Images: []Image{
		{Tags: tags("v1.13.0"), Size: 104_217_661},
		{Tags: tags("v1.12.1"), Size: 103_332_019},
	}},
	{Name: "registry.k8s.io/kube-state-metrics/kube-state-metrics", Images: []Image{{Tags: tags("v2.15.0"), Size: 21_406_117}}},
	// k8s.gcr.io, the registry before registry.k8s.io, frozen with what
	// older pages of the documentation name.
	{Name: "k8s.gcr.io/redis", Images: []Image{{Tags: tags("e2e"), Size: 149_224_815}}},

	// Google's sample applications.
	{Name: "gcr.io/google-samples/hello-app", Images: []Image{
		{Tags: tags("2.0"), Size: 10_314_028},
		{Tags: tags("1.0"), Size: 10_310_966},
	}},
	{Name: "gcr.io/google-samples/kubernetes-bootcamp", Images: []Image{{Tags: tags("v1"), Size: 75_410_118}}},
	{Name: "gcr.io/google-samples/node-hello", Images: []Image{{Tags: tags("1.0"), Size: 253_113_722}}},
	{Name: "gcr.io/google_samples/gb-frontend", Images: []Image{
		{Tags: tags("v5"), Size: 161_225_471},
		{Tags: tags("v4"), Size: 160_114_309},
		{Tags: tags("v3"), Size: 128_413_220},
	}},
	{Name: "us-docker.pkg.dev/google-samples/containers/gke/hello-app", Images: []Image{
		{Tags: tags("2.0"), Size: 10_314_028},
		{Tags: tags("1.0"), Size: 10_310_966},
	}},
	{Name: "us-docker.pkg.dev/google-samples/containers/gke/gb-frontend", Images: []Image{{Tags: tags("v5"), Size: 161_225_471}}},
	{Name: "us-docker.pkg.dev/google-samples/containers/gke/gb-redis-follower", Images: []Image{{Tags: tags("v2"), Size: 37_412_066}}},
	{Name: "ghcr.io/stefanprodan/podinfo", Images: []Image{
		{Tags: tags("latest", "6.9.1"), Size: 20_910_322},
		{Tags: tags("6.7.1"), Size: 20_514_117},
	}},

	// The images of the real charts kubesim's Helm tests install.
	{Name: "quay.io/jetstack/cert-manager-controller", Images: []Image{
		{Tags: tags("v1.19.1"), Size: 23_115_690},
		{Tags: tags("v1.18.2"), Size: 22_917_332},
	}},
	{Name: "quay.io/jetstack/cert-manager-webhook", Images: []Image{
		{Tags: tags("v1.19.1"), Size: 18_711_204},
		{Tags: tags("v1.18.2"), Size: 18_604_889},
	}},
	{Name: "quay.io/jetstack/cert-manager-cainjector", Images: []Image{
		{Tags: tags("v1.19.1"), Size: 16_417_116},
		{Tags: tags("v1.18.2"), Size: 16_308_530},
	}},
	{Name: "quay.io/jetstack/cert-manager-startupapicheck", Images: []Image{
		{Tags: tags("v1.19.1"), Size: 17_522_301},
		{Tags: tags("v1.18.2"), Size: 17_411_096},
	}},
	{Name: "quay.io/jetstack/cert-manager-acmesolver", Images: []Image{
		{Tags: tags("v1.19.1"), Size: 9_214_553},
		{Tags: tags("v1.18.2"), Size: 9_182_003},
	}},
	{Name: "oci.external-secrets.io/external-secrets/external-secrets", Images: []Image{
		{Tags: tags("v0.16.2"), Size: 46_312_719},
		{Tags: tags("v0.16.1"), Size: 46_228_930},
	}},
	{Name: "ghcr.io/external-secrets/external-secrets", Images: []Image{
		{Tags: tags("v0.16.2"), Size: 46_312_719},
		{Tags: tags("v0.16.1"), Size: 46_228_930},
	}},
	{Name: "reg.kyverno.io/kyverno/kyverno", Images: []Image{{Tags: tags("v1.15.2"), Size: 48_117_205}}},
	{Name: "reg.kyverno.io/kyverno/kyvernopre", Images: []Image{{Tags: tags("v1.15.2"), Size: 31_514_330}}},
	{Name: "reg.kyverno.io/kyverno/background-controller", Images: []Image{{Tags: tags("v1.15.2"), Size: 36_611_872}}},
	{Name: "reg.kyverno.io/kyverno/cleanup-controller", Images: []Image{{Tags: tags("v1.15.2"), Size: 35_207_344}}},
	{Name: "reg.kyverno.io/kyverno/reports-controller", Images: []Image{{Tags: tags("v1.15.2"), Size: 36_018_991}}},
	{Name: "reg.kyverno.io/kyverno/kyverno-cli", Images: []Image{{Tags: tags("v1.15.2"), Size: 40_512_770}}},

	// The private registry: every repository needs the account.
	{Name: PrivateRegistry + "/team/app", Images: []Image{
		{Tags: tags("latest", "2.0"), Size: 6_291_456},
		{Tags: tags("1.0"), Size: 5_767_168},
	}},
}
