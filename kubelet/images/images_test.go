package images

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

func TestNormalize(t *testing.T) {
	digest := "sha256:" + fmt.Sprintf("%064x", 1)
	tests := map[string]string{
		"nginx":                      "docker.io/library/nginx:latest",
		"nginx:1.27":                 "docker.io/library/nginx:1.27",
		"bitnami/redis":              "docker.io/bitnami/redis:latest",
		"registry.k8s.io/pause:3.10": "registry.k8s.io/pause:3.10",
		"localhost/app":              "localhost/app:latest",
		"localhost:5000/app:v1":      "localhost:5000/app:v1",
		"nginx@" + digest:            "docker.io/library/nginx@" + digest,
		"NGINX":                      "NGINX", // does not parse: left as it is
	}
	for in, want := range tests {
		assert.Equal(t, want, Normalize(in), in)
	}
}

func TestParseErrors(t *testing.T) {
	for image, want := range map[string]string{
		"NGINX":         `couldn't parse image reference "NGINX": invalid reference format: repository name (library/NGINX) must be lowercase`,
		"nginx:Bad Tag": `couldn't parse image reference "nginx:Bad Tag": invalid reference format`,
		"":              `couldn't parse image reference "": invalid reference format`,
	} {
		_, err := Parse(image)
		assert.EqualError(t, err, want, image)
	}
}

func TestDefaultPullPolicy(t *testing.T) {
	digest := "@sha256:" + fmt.Sprintf("%064x", 1)
	for image, want := range map[string]corev1.PullPolicy{
		"nginx": corev1.PullAlways, "nginx:latest": corev1.PullAlways, "nginx:1.27": corev1.PullIfNotPresent,
		"nginx" + digest: corev1.PullIfNotPresent, "nginx:latest" + digest: corev1.PullAlways,
	} {
		r, err := Parse(image)
		require.NoError(t, err)
		assert.Equal(t, want, DefaultPullPolicy(r), image)
	}
}

func resolve(t *testing.T, image string, creds ...Credential) (Resolved, error) {
	t.Helper()
	r, err := Parse(image)
	require.NoError(t, err)
	return Default().Resolve(r, creds)
}

// The registries answer as the real ones do: a known tag resolves, its
// aliases to the same digest; another tag is not found; Docker Hub hides
// repositories it does not serve; an unknown host does not resolve.
func TestResolve(t *testing.T) {
	latest, err := resolve(t, "nginx")
	require.NoError(t, err)
	mainline, err := resolve(t, "docker.io/library/nginx:mainline")
	require.NoError(t, err)
	assert.Equal(t, latest.Digest, mainline.Digest, "tags of one image")
	assert.Equal(t, int64(72_318_011), latest.Size)
	byDigest, err := resolve(t, "nginx@"+latest.Digest)
	require.NoError(t, err)
	assert.Equal(t, latest.ID(), byDigest.ID())
	old, err := resolve(t, "nginx:1.25")
	require.NoError(t, err)
	assert.NotEqual(t, latest.Digest, old.Digest)

	for image, want := range map[string]string{
		"nginx:doesnotexist-1.99": `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:doesnotexist-1.99": ` +
			`failed to resolve reference "docker.io/library/nginx:doesnotexist-1.99": docker.io/library/nginx:doesnotexist-1.99: not found`,
		"myapp:v1": `rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/myapp:v1": ` +
			`failed to resolve reference "docker.io/library/myapp:v1": pull access denied, repository does not exist or may require authorization: ` +
			`server message: insufficient_scope: authorization failed`,
		"registry.k8s.io/nope:1": `rpc error: code = NotFound desc = failed to pull and unpack image "registry.k8s.io/nope:1": ` +
			`failed to resolve reference "registry.k8s.io/nope:1": registry.k8s.io/nope:1: not found`,
		"registry.example.com/team/app:1.0": `rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/team/app:1.0": ` +
			`failed to resolve reference "registry.example.com/team/app:1.0": failed to do request: ` +
			`Head "https://registry.example.com/v2/team/app/manifests/1.0": dial tcp: lookup registry.example.com: no such host`,
		"localhost:5000/app:dev": `rpc error: code = Unknown desc = failed to pull and unpack image "localhost:5000/app:dev": ` +
			`failed to resolve reference "localhost:5000/app:dev": failed to do request: ` +
			`Head "https://localhost:5000/v2/app/manifests/dev": dial tcp 127.0.0.1:5000: connect: connection refused`,
	} {
		_, err := resolve(t, image)
		assert.EqualError(t, err, want, image)
	}

	// The conformance suite's own builds of busybox, httpd and nginx.
	for _, image := range []string{"registry.k8s.io/e2e-test-images/busybox:1.36.1-1", "registry.k8s.io/e2e-test-images/httpd:2.4.38-4",
		"registry.k8s.io/e2e-test-images/nginx:1.14-4"} {
		_, err := resolve(t, image)
		assert.NoError(t, err, image)
	}

	// kubesim's own images have every tag.
	sleep, err := resolve(t, "kubesim/sleep:whatever")
	require.NoError(t, err)
	assert.Equal(t, "docker.io/kubesim/sleep", sleep.Name)
}

// The private registry wants the account; Docker Hub's private
// repository too.
func TestResolvePrivate(t *testing.T) {
	account := Credential{Username: PrivateUsername, Password: PrivatePassword}
	_, err := resolve(t, "registry.kubesim.io/team/app:1.0")
	assert.ErrorContains(t, err, "unexpected status from HEAD request to https://registry.kubesim.io/v2/team/app/manifests/1.0: 401 Unauthorized")
	_, err = resolve(t, "registry.kubesim.io/team/app:1.0", Credential{Username: "student", Password: "guess"})
	assert.ErrorContains(t, err, "401 Unauthorized")
	img, err := resolve(t, "registry.kubesim.io/team/app:1.0", Credential{Username: "x", Password: "y"}, account)
	require.NoError(t, err)
	assert.Equal(t, int64(5_767_168), img.Size)
	_, err = resolve(t, "registry.kubesim.io/team/app:9", account)
	assert.ErrorContains(t, err, "registry.kubesim.io/team/app:9: not found")
	_, err = resolve(t, "kubesim/private-app:1.0")
	assert.ErrorContains(t, err, "pull access denied")
	_, err = resolve(t, "kubesim/private-app:1.0", account)
	assert.NoError(t, err)
}

func dockerConfigJSON(server, user, password string) corev1.Secret {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	return corev1.Secret{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{
		corev1.DockerConfigJsonKey: fmt.Appendf(nil, `{"auths":{%q:{"auth":%q}}}`, server, auth)}}
}

// The keyring files credentials by registry, as the kubelet's does.
func TestKeyring(t *testing.T) {
	ref := func(image string) Ref {
		r, err := Parse(image)
		require.NoError(t, err)
		return r
	}
	kr := MakeKeyring([]corev1.Secret{
		dockerConfigJSON("registry.kubesim.io", "a", "1"),
		dockerConfigJSON("https://index.docker.io/v1/", "hub", "2"),
		dockerConfigJSON("*.example.com/team", "glob", "3"),
		dockerConfigJSON("https://localhost:5000/v2/", "local", "4"),
		// kubernetes.io/dockercfg: the registries at the top level.
		{Type: corev1.SecretTypeDockercfg, Data: map[string][]byte{corev1.DockerConfigKey: []byte(`{"ghcr.io":{"username":"old","password":"5"}}`)}},
		// Not a docker config secret: ignored, whatever it holds.
		{Type: corev1.SecretTypeOpaque, Data: dockerConfigJSON("quay.io", "opaque", "6").Data},
		// Not JSON: ignored (the API server refuses it anyway).
		{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte("{")}},
	})
	for image, want := range map[string][]Credential{
		"registry.kubesim.io/team/app:1.0": {{"a", "1"}},
		"nginx":                            {{"hub", "2"}},
		"kubesim/private-app":              {{"hub", "2"}},
		"registry.example.com/team/x":      {{"glob", "3"}},
		"registry.example.com/other/x":     nil,
		"example.com/team/x":               nil,
		"localhost:5000/app":               {{"local", "4"}},
		"localhost/app":                    nil,
		"ghcr.io/x/y":                      {{"old", "5"}},
		"quay.io/x/y":                      nil,
	} {
		assert.Equal(t, want, kr.Lookup(ref(image)), image)
	}
}

// The back-off starts at 10 s, doubles to 5 minutes, is about one image,
// and is forgotten after 10 minutes without a failure.
func TestBackoff(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Backoff
	assert.False(t, b.InBackOff("x", t0))
	var delays []time.Duration
	at := t0
	for range 7 {
		b.Next("x", at)
		delays = append(delays, b.Delay)
		assert.True(t, b.InBackOff("x", at.Add(b.Delay-time.Millisecond)))
		assert.False(t, b.InBackOff("x", at.Add(b.Delay)))
		assert.False(t, b.InBackOff("y", at), "another image")
		at = at.Add(b.Delay)
	}
	s := time.Second
	assert.Equal(t, []time.Duration{10 * s, 20 * s, 40 * s, 80 * s, 160 * s, 300 * s, 300 * s}, delays)
	b.Next("x", at.Add(10*time.Minute+time.Second))
	assert.Equal(t, BackOffInitial, b.Delay, "forgotten after twice the maximum")
	b.Next("y", at)
	assert.Equal(t, BackOffInitial, b.Delay, "another image starts afresh")
}

// The manager's decisions, on a node whose pulls take a fixed pace.
func TestManagerEnsure(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := Manager{Registry: Default().WithPace(time.Second, 10<<20), Store: NewStore()}
	var b Backoff
	res := m.Ensure(Request{Image: "busybox:1.36", Backoff: &b}, t0)
	require.NotNil(t, res.Pull)
	assert.Equal(t, []Event{{"Normal", "Pulling", `Pulling image "busybox:1.36"`}}, res.Events)
	assert.Equal(t, t0.Add(1205*time.Millisecond), res.Pull.Done, "1 s, then 2,155,983 bytes at 10 MiB/s")

	// Asked for during the first pull, it waits for it; the layers are
	// there by the time it starts.
	second := m.Ensure(Request{Image: "busybox:1.36", Policy: corev1.PullAlways, Backoff: &b}, t0.Add(time.Second))
	require.NotNil(t, second.Pull)
	assert.Equal(t, t0.Add(1205*time.Millisecond), second.Pull.Started)
	assert.Equal(t, t0.Add(2205*time.Millisecond), second.Pull.Done)
	done := m.Finish(second.Pull, &b)
	require.NotNil(t, done.Image)
	assert.Equal(t, `Successfully pulled image "busybox:1.36" in 1s (1.205s including waiting). Image size: 2155983 bytes.`, done.Events[0].Message)

	// IfNotPresent before the first pull ended: not there yet.
	early := m.Ensure(Request{Image: "busybox:1.36", Policy: corev1.PullIfNotPresent, Backoff: &b}, t0.Add(time.Second))
	assert.NotNil(t, early.Pull)
	present := m.Ensure(Request{Image: "busybox:1.36", Policy: corev1.PullNever, Backoff: &b}, t0.Add(2*time.Second))
	require.NotNil(t, present.Image)
	assert.Equal(t, `Container image "busybox:1.36" already present on machine`, present.Events[0].Message)

	// A failure starts the back-off; meanwhile the container is told so.
	bad := m.Ensure(Request{Image: "busybox:nope", Backoff: &b}, t0.Add(10*time.Second))
	require.NotNil(t, bad.Pull)
	failed := m.Finish(bad.Pull, &b)
	assert.Equal(t, ErrImagePull, failed.Reason)
	assert.Equal(t, BackOffInitial, b.Delay)
	wait := m.Ensure(Request{Image: "busybox:nope", Backoff: &b}, bad.Pull.Done.Add(time.Second))
	assert.Equal(t, ImagePullBackOff, wait.Reason)
	assert.Equal(t, `Back-off pulling image "busybox:nope": ErrImagePull: `+failed.Message, wait.Message)
	assert.Equal(t, []Event{{"Normal", "BackOff", `Back-off pulling image "busybox:nope"`}}, wait.Events)
	again := m.Ensure(Request{Image: "busybox:nope", Backoff: &b}, bad.Pull.Done.Add(BackOffInitial))
	assert.NotNil(t, again.Pull, "the back-off is over")

	// The keyring is read only for a pull.
	read := 0
	keyring := func() Keyring { read++; return Keyring{} }
	m.Ensure(Request{Image: "busybox:1.36", Policy: corev1.PullIfNotPresent, Keyring: keyring, Backoff: &Backoff{}}, t0.Add(time.Hour))
	assert.Zero(t, read)
	m.Ensure(Request{Image: "alpine:3.20", Keyring: keyring, Backoff: &Backoff{}}, t0.Add(time.Hour))
	assert.Equal(t, 1, read)
}

// The node's status lists at most 50 images, largest first, with at
// most 5 names each.
func TestNodeImages(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := NewStore()
	for i := range 60 {
		s.Add(Resolved{Name: fmt.Sprintf("docker.io/library/app%d", i), Tag: "v1", Digest: digestOf("app", fmt.Sprint(i)), Size: int64(1000 + i)}, t0)
	}
	for _, tag := range []string{"a", "b", "c", "d", "e", "f"} {
		s.Add(Resolved{Name: "docker.io/library/big", Tag: tag, Digest: digestOf("big", ""), Size: 1 << 30}, t0)
	}
	s.Add(Resolved{Name: "docker.io/library/later", Tag: "v1", Digest: digestOf("later", ""), Size: 1 << 31}, t0.Add(time.Minute))
	list := s.NodeImages(t0)
	require.Len(t, list, MaxImagesInNodeStatus)
	assert.Equal(t, int64(1<<30), list[0].SizeBytes, "the image pulled later is not there yet")
	assert.Len(t, list[0].Names, MaxNamesPerImageInNodeStatus)
	assert.Equal(t, int64(1059), list[1].SizeBytes)
	assert.True(t, s.Reported(list, t0))
	assert.False(t, s.Reported(list, t0.Add(time.Minute)), "the later image changes the list")
	assert.False(t, s.Reported(list[1:], t0))
}

// docs/containers.md lists every repository of the registries with all
// its tags, and the hosts that answer.
func TestDocsListTheRegistries(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "containers.md"))
	require.NoError(t, err)
	doc := string(raw)
	rows := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		if name, rest, ok := strings.Cut(strings.TrimPrefix(line, "| `"), "` | "); ok && strings.HasPrefix(line, "| `") {
			rows[name] = rest
		}
	}
	for _, repo := range catalog {
		name := strings.TrimPrefix(strings.TrimPrefix(repo.Name, "docker.io/library/"), "docker.io/")
		row, ok := rows[name]
		if !assert.True(t, ok, "docs/containers.md lists %s", name) {
			continue
		}
		cells := strings.FieldsFunc(strings.TrimSuffix(row, " |"), func(r rune) bool { return r == ',' || r == '=' })
		var listed []string
		for _, c := range cells {
			listed = append(listed, strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c), "(private)")))
		}
		for _, img := range repo.Images {
			for _, tag := range img.Tags {
				assert.Contains(t, listed, tag, "docs/containers.md: the tags of %s", name)
			}
		}
	}
	for _, h := range knownHosts {
		assert.Contains(t, doc, "`"+h.Name+"`", "docs/containers.md names the host")
	}
}
