package kubelet

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/client"
	"github.com/kubesim/kubesim/kubelet/images"
	"github.com/kubesim/kubesim/kubelet/programs"
)

// newPullFixture is a kubelet whose pulls take the default registry's
// time: 300 ms to resolve a reference, the image's size at 50 MiB/s.
func newPullFixture(t *testing.T) *fixture {
	return newFixture(t, Config{Registry: images.Default()})
}

// waiting is the waiting reason and message of the pod's first
// container ("" when it does not wait).
func (f *fixture) waiting(name string) (reason, message string) {
	f.t.Helper()
	pod := f.pod(name)
	if len(pod.Status.ContainerStatuses) == 0 || pod.Status.ContainerStatuses[0].State.Waiting == nil {
		return "", ""
	}
	w := pod.Status.ContainerStatuses[0].State.Waiting
	return w.Reason, w.Message
}

// eventCount is how many times events of reason were recorded about the
// object name (an aggregated event counts its repeats).
func (f *fixture) eventCount(name, reason string) int {
	f.t.Helper()
	l, err := f.env.Client.Events().List(f.ctx, "", client.ListOptions{FieldSelector: "involvedObject.name=" + name})
	require.NoError(f.t, err)
	n := 0
	for _, ev := range l.Items {
		if ev.Reason == reason {
			n += int(ev.Count)
		}
	}
	return n
}

// withImage makes the pod's container a long sleep in image, pulled
// with policy.
func withImage(image string, policy corev1.PullPolicy) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Image = image
		p.Spec.Containers[0].ImagePullPolicy = policy
		p.Spec.Containers[0].Command = []string{"sleep", "3600"}
	}
}

// A pull takes its time on the kubelet's clock; the pod shows
// ContainerCreating until its image is there, and the next pod that asks
// for it with IfNotPresent finds it on the node.
func TestPullTakesTheImagesTime(t *testing.T) {
	f := newPullFixture(t)
	t0 := f.clk.Now()
	f.createPod("web", withImage("nginx:1.25", ""))
	f.settle()
	reason, _ := f.waiting("web")
	assert.Equal(t, "ContainerCreating", reason, "the status is not written during the pull")
	assert.Empty(t, f.pod("web").Status.PodIP)
	assert.Contains(t, f.events("web"), `Pulling: Pulling image "nginx:1.25"`)

	// 300 ms for the reference, 70,544,321 bytes at 50 MiB/s.
	pull := 300*time.Millisecond + 1345*time.Millisecond
	f.until(t0.Add(pull - time.Millisecond))
	assert.Empty(t, f.pod("web").Status.ContainerStatuses[0].State.Running)
	f.until(t0.Add(pull))
	pod := f.pod("web")
	require.NotNil(t, pod.Status.ContainerStatuses[0].State.Running)
	assert.True(t, pod.Status.ContainerStatuses[0].State.Running.StartedAt.Time.Equal(t0.Add(pull).Truncate(time.Second)))
	assert.Equal(t, corev1.PodRunning, pod.Status.Phase)
	assert.Equal(t, "docker.io/library/nginx:1.25", pod.Status.ContainerStatuses[0].Image)
	assert.Regexp(t, `^docker.io/library/nginx@sha256:[0-9a-f]{64}$`, pod.Status.ContainerStatuses[0].ImageID)
	assert.Equal(t, []string{
		`Pulling: Pulling image "nginx:1.25"`,
		`Pulled: Successfully pulled image "nginx:1.25" in 1.645s (1.645s including waiting). Image size: 70544321 bytes.`,
		"Created: Created container nginx",
		"Started: Started container nginx",
	}, f.events("web"))

	f.createPod("again", withImage("nginx:1.25", corev1.PullIfNotPresent))
	f.settle()
	require.NotNil(t, f.pod("again").Status.ContainerStatuses[0].State.Running, "no pull: it starts at once")
	assert.Equal(t, []string{
		`Pulled: Container image "nginx:1.25" already present on machine`,
		"Created: Created container nginx",
		"Started: Started container nginx",
	}, f.events("again"))
	assert.Equal(t, pod.Status.ContainerStatuses[0].ImageID, f.pod("again").Status.ContainerStatuses[0].ImageID)
}

// imagePullPolicy: Always pulls what the node has (a lookup of the
// reference, no layers); Never uses what the node has and fails
// otherwise, trying again after the pod worker's back-off.
func TestPullPolicies(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("first", withImage("busybox:1.36", corev1.PullIfNotPresent))
	f.settle()
	f.next()
	require.NotNil(t, f.pod("first").Status.ContainerStatuses[0].State.Running)

	f.createPod("always", withImage("busybox:1.36", corev1.PullAlways))
	f.settle()
	f.next()
	assert.Contains(t, f.events("always"),
		`Pulled: Successfully pulled image "busybox:1.36" in 300ms (300ms including waiting). Image size: 2155983 bytes.`)

	f.createPod("never", withImage("busybox:1.36", corev1.PullNever))
	f.settle()
	assert.Contains(t, f.events("never"), `Pulled: Container image "busybox:1.36" already present on machine`)
	require.NotNil(t, f.pod("never").Status.ContainerStatuses[0].State.Running)

	t0 := f.clk.Now()
	f.createPod("absent", withImage("alpine:3.20", corev1.PullNever))
	f.settle()
	reason, msg := f.waiting("absent")
	assert.Equal(t, "ErrImageNeverPull", reason)
	assert.Equal(t, `Container image "alpine:3.20" is not present with pull policy of Never`, msg)
	assert.Equal(t, corev1.PodPending, f.pod("absent").Status.Phase)
	assert.Equal(t, []string{
		`ErrImageNeverPull: Container image "alpine:3.20" is not present with pull policy of Never`,
		"Failed: Error: ErrImageNeverPull",
	}, f.events("absent"))
	f.until(t0.Add(workerBackOffPeriod))
	assert.Equal(t, 2, f.eventCount("absent", "ErrImageNeverPull"), "tried again after the pod worker's back-off")
}

// The node's puller takes one pull at a time: a pull asked for during
// another waits, and its event says so.
func TestPullsAreSerialized(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("a", withImage("busybox:1.36", ""))
	f.createPod("b", withImage("alpine:3.20", ""))
	f.settle()
	for range 2 {
		f.next()
	}
	// busybox: 300 ms + 41 ms; alpine: 300 ms + 69 ms, after busybox.
	assert.Contains(t, f.events("a"), `Pulled: Successfully pulled image "busybox:1.36" in 341ms (341ms including waiting). Image size: 2155983 bytes.`)
	assert.Contains(t, f.events("b"), `Pulled: Successfully pulled image "alpine:3.20" in 369ms (710ms including waiting). Image size: 3625702 bytes.`)
}

// A tag that does not exist: ErrImagePull, then ImagePullBackOff, the
// pull tried again after 10 s, 20 s, 40 s… up to 5 minutes.
func TestPullBackOff(t *testing.T) {
	f := newPullFixture(t)
	t0 := f.clk.Now()
	f.createPod("web", withImage("nginx:doesnotexist-1.99", ""))
	f.settle()
	f.next()
	failed := t0.Add(300 * time.Millisecond)
	require.Equal(t, failed, f.clk.Now())
	const notFound = `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:doesnotexist-1.99": ` +
		`failed to resolve reference "docker.io/library/nginx:doesnotexist-1.99": docker.io/library/nginx:doesnotexist-1.99: not found`
	reason, msg := f.waiting("web")
	assert.Equal(t, "ErrImagePull", reason)
	assert.Equal(t, notFound, msg)
	pod := f.pod("web")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	assert.NotEmpty(t, pod.Status.PodIP, "the sandbox exists")
	assert.Equal(t, []string{
		`Pulling: Pulling image "nginx:doesnotexist-1.99"`,
		`Failed: Failed to pull image "nginx:doesnotexist-1.99": ` + notFound,
		"Failed: Error: ErrImagePull",
	}, f.events("web"))

	// The PLEG's relist a second later: the image is in back-off.
	f.until(failed.Add(time.Second))
	reason, msg = f.waiting("web")
	assert.Equal(t, "ImagePullBackOff", reason)
	assert.Equal(t, `Back-off pulling image "nginx:doesnotexist-1.99": ErrImagePull: `+notFound, msg)
	assert.Contains(t, f.events("web"), `BackOff: Back-off pulling image "nginx:doesnotexist-1.99"`)
	assert.Contains(t, f.events("web"), "Failed: Error: ImagePullBackOff")

	// The pod worker looks again every 10 s; it pulls once the back-off
	// (10 s, 20 s, 40 s, … at most 300 s after each failure) is over:
	// pulls at 0, 11.3, 31.6, 71.9, 152.2, 312.5, 612.8 and 913.1 s,
	// each failing 300 ms later and shown as ErrImagePull until the next
	// look. (The events cannot count them: the kubelet's event recorder
	// drops most of a pod's events after 25 of them, as client-go's spam
	// filter does.)
	for _, tt := range []struct {
		at   time.Duration
		want string
	}{
		{11 * time.Second, "ImagePullBackOff"}, {11700 * time.Millisecond, "ErrImagePull"},
		{21700 * time.Millisecond, "ImagePullBackOff"}, {31500 * time.Millisecond, "ImagePullBackOff"},
		{32 * time.Second, "ErrImagePull"}, {71800 * time.Millisecond, "ImagePullBackOff"},
		{72300 * time.Millisecond, "ErrImagePull"}, {152400 * time.Millisecond, "ImagePullBackOff"},
		{152600 * time.Millisecond, "ErrImagePull"}, {312700 * time.Millisecond, "ImagePullBackOff"},
		{312900 * time.Millisecond, "ErrImagePull"}, {613 * time.Second, "ImagePullBackOff"},
		{613200 * time.Millisecond, "ErrImagePull"}, {913300 * time.Millisecond, "ImagePullBackOff"},
		{913500 * time.Millisecond, "ErrImagePull"},
	} {
		f.until(t0.Add(tt.at))
		reason, _ := f.waiting("web")
		assert.Equal(t, tt.want, reason, "at %s", tt.at)
	}
}

// A bad tag fixed in the pod's spec (kubectl set image on a pod): the
// container, which never ran, starts from the new image without a
// restart.
func TestNewImageEndsThePullBackOff(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("web", withImage("nginx:doesnotexist-1.99", ""))
	f.settle()
	f.next()
	f.next()
	reason, _ := f.waiting("web")
	require.Equal(t, "ImagePullBackOff", reason)

	_, err := f.env.Client.Pods().Patch(f.ctx, "default", "web", client.StrategicPatch,
		[]byte(`{"spec":{"containers":[{"name":"nginx","image":"nginx:1.27"}]}}`))
	require.NoError(t, err)
	f.settle()
	assert.Contains(t, f.events("web"), `Pulling: Pulling image "nginx:1.27"`)
	f.next()
	cs := f.pod("web").Status.ContainerStatuses[0]
	require.NotNil(t, cs.State.Running)
	assert.Equal(t, int32(0), cs.RestartCount)
	assert.Equal(t, "docker.io/library/nginx:1.27", cs.Image)
	assert.NotContains(t, f.events("web"), "Killing: Container nginx definition changed, will be restarted")
}

// An image reference that does not parse: InvalidImageName, with the
// parser's own words.
func TestInvalidImageName(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("upper", withImage("NGINX", ""))
	f.settle()
	const msg = `Failed to apply default image tag "NGINX": couldn't parse image reference "NGINX": ` +
		`invalid reference format: repository name (library/NGINX) must be lowercase`
	reason, got := f.waiting("upper")
	assert.Equal(t, "InvalidImageName", reason)
	assert.Equal(t, msg, got)
	assert.Equal(t, []string{"InspectFailed: " + msg, "Failed: Error: InvalidImageName"}, f.events("upper"))
}

// dockerConfig is what kubectl create secret docker-registry writes.
func dockerConfig(server, user, password string) []byte {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	return fmt.Appendf(nil, `{"auths":{%q:{"username":%q,"password":%q,"auth":%q}}}`, server, user, password, auth)
}

// The private registry serves a pod whose pull secret holds the
// account's credentials for it, and no other.
func TestPrivateRegistry(t *testing.T) {
	f := newPullFixture(t)
	secret := func(name string, typ corev1.SecretType, key string, data []byte) {
		_, err := f.env.Client.Secrets().Create(f.ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Type: typ, Data: map[string][]byte{key: data}})
		require.NoError(t, err)
	}
	json := corev1.SecretTypeDockerConfigJson
	secret("regcred", json, corev1.DockerConfigJsonKey, dockerConfig("registry.kubesim.io", "student", "kubesim"))
	secret("wrong-password", json, corev1.DockerConfigJsonKey, dockerConfig("registry.kubesim.io", "student", "guess"))
	secret("other-registry", json, corev1.DockerConfigJsonKey, dockerConfig("ghcr.io", "student", "kubesim"))
	secret("opaque", corev1.SecretTypeOpaque, corev1.DockerConfigJsonKey, dockerConfig("registry.kubesim.io", "student", "kubesim"))
	secret("hub", json, corev1.DockerConfigJsonKey, dockerConfig("https://index.docker.io/v1/", "student", "kubesim"))

	const unauthorized = `rpc error: code = Unknown desc = failed to pull and unpack image "registry.kubesim.io/team/app:1.0": ` +
		`failed to resolve reference "registry.kubesim.io/team/app:1.0": unexpected status from HEAD request to ` +
		`https://registry.kubesim.io/v2/team/app/manifests/1.0: 401 Unauthorized`
	// Always: each pod pulls, with its own secrets (IfNotPresent would
	// use the image another pod pulled, below).
	private := func(name, image string, secrets ...string) {
		f.createPod(name, func(p *corev1.Pod) {
			withImage(image, corev1.PullAlways)(p)
			for _, s := range secrets {
				p.Spec.ImagePullSecrets = append(p.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
			}
		})
	}
	for _, tt := range []struct{ name, secret string }{
		{"none", ""}, {"wrong-password", "wrong-password"}, {"other-registry", "other-registry"}, {"opaque", "opaque"}, {"missing", "missing"},
	} {
		if tt.secret == "" {
			private(tt.name, "registry.kubesim.io/team/app:1.0")
		} else {
			private(tt.name, "registry.kubesim.io/team/app:1.0", tt.secret)
		}
	}
	private("right", "registry.kubesim.io/team/app:1.0", "missing", "regcred")
	private("hub-none", "kubesim/private-app:1.0")
	private("hub", "kubesim/private-app:1.0", "hub")
	f.settle()
	f.until(f.clk.Now().Add(5 * time.Second)) // the node pulls one image at a time
	for _, name := range []string{"none", "wrong-password", "other-registry", "opaque", "missing"} {
		assert.Contains(t, f.events(name), `Failed: Failed to pull image "registry.kubesim.io/team/app:1.0": `+unauthorized, name)
		reason, msg := f.waiting(name)
		assert.Equal(t, "ImagePullBackOff", reason, name)
		assert.Equal(t, `Back-off pulling image "registry.kubesim.io/team/app:1.0": ErrImagePull: `+unauthorized, msg, name)
	}
	_, msg := f.waiting("hub-none")
	assert.Contains(t, msg, "ErrImagePull: rpc error: code = Unknown desc = failed to pull and unpack image "+
		`"docker.io/kubesim/private-app:1.0": failed to resolve reference "docker.io/kubesim/private-app:1.0": `+
		"pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed")
	for _, name := range []string{"right", "hub"} {
		require.NotNil(t, f.pod(name).Status.ContainerStatuses[0].State.Running, name)
	}
	warning := "FailedToRetrieveImagePullSecret: Unable to retrieve some image pull secrets (missing); attempting to pull the image may not succeed."
	assert.Contains(t, f.events("missing"), warning)
	assert.Contains(t, f.events("right"), warning)

	// As in Kubernetes 1.32 (without the KubeletEnsureSecretPulledImages
	// gate): once on the node, the image serves any pod that does not
	// pull it.
	f.createPod("present", withImage("registry.kubesim.io/team/app:1.0", corev1.PullIfNotPresent))
	f.settle()
	assert.Contains(t, f.events("present"), `Pulled: Container image "registry.kubesim.io/team/app:1.0" already present on machine`)
}

// The node's status lists the images its pulls brought, largest first.
func TestNodeReportsItsImages(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("a", withImage("busybox:1.36", ""))
	f.createPod("b", withImage("nginx:1.27", ""))
	f.createPod("c", withImage("nginx:1.27.5", ""))
	f.settle()
	f.until(f.clk.Now().Add(11 * time.Second)) // the pulls, then a heartbeat
	node, err := f.env.Client.Nodes().Get(f.ctx, "", "node-1")
	require.NoError(t, err)
	require.Len(t, node.Status.Images, 2)
	nginx, busybox := node.Status.Images[0], node.Status.Images[1]
	assert.Equal(t, int64(68_857_691), nginx.SizeBytes)
	require.Len(t, nginx.Names, 3)
	assert.Equal(t, f.pod("b").Status.ContainerStatuses[0].ImageID, nginx.Names[0])
	assert.Equal(t, []string{"docker.io/library/nginx:1.27", "docker.io/library/nginx:1.27.5"}, nginx.Names[1:])
	assert.Equal(t, int64(2_155_983), busybox.SizeBytes)
	assert.Equal(t, "docker.io/library/busybox:1.36", busybox.Names[1])
}

// An init container waits for its image as the pod's containers do
// (kubectl shows Init:ErrImagePull); a pod one of whose containers never
// started is Pending, even with another running.
func TestImagesOfInitAndSeveralContainers(t *testing.T) {
	f := newPullFixture(t)
	f.createPod("init", func(p *corev1.Pod) {
		p.Spec.InitContainers = []corev1.Container{{Name: "setup", Image: "busybox:0.0-nope", Command: []string{"true"}}}
	})
	f.createPod("two", func(p *corev1.Pod) {
		withImage("busybox:1.36", "")(p)
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "side", Image: "redis:0.0-nope"})
	})
	f.settle()
	f.until(f.clk.Now().Add(2 * time.Second))
	pod := f.pod("init")
	require.Len(t, pod.Status.InitContainerStatuses, 1)
	require.NotNil(t, pod.Status.InitContainerStatuses[0].State.Waiting)
	assert.Equal(t, "ImagePullBackOff", pod.Status.InitContainerStatuses[0].State.Waiting.Reason)
	assert.Equal(t, "PodInitializing", pod.Status.ContainerStatuses[0].State.Waiting.Reason)

	pod = f.pod("two")
	assert.Equal(t, corev1.PodPending, pod.Status.Phase)
	require.Len(t, pod.Status.ContainerStatuses, 2)
	assert.NotNil(t, pod.Status.ContainerStatuses[0].State.Running, "nginx runs")
	assert.Equal(t, "ImagePullBackOff", pod.Status.ContainerStatuses[1].State.Waiting.Reason)
}

// The registries and the list of images agree: every repository a pull
// finds is one package programs knows (what it has, what it runs), and
// every image programs knows can be pulled, so that a container of it
// neither runs an image kubesim knows nothing of nor fails a pull of an
// image kubesim knows.
func TestRegistriesAndProgramsKnowTheSameImages(t *testing.T) {
	repos := images.Default().Repositories()
	for _, r := range repos {
		_, ok := programs.Lookup(r.Name + ":x")
		assert.True(t, ok, "programs.Lookup knows %s", r.Name)
	}
	for _, name := range programs.Names() {
		found := false
		for _, r := range repos {
			repo, _ := programs.Repo(r.Name)
			if repo == name || !strings.Contains(name, "/") && repo[strings.LastIndex(repo, "/")+1:] == name {
				found = true
				break
			}
		}
		assert.True(t, found, "the registries hold %s", name)
	}
}
