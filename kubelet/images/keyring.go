package images

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Keyring is the credentials of a pod's image pull secrets, by registry:
// the kubelet's keyring (pkg/credentialprovider, made by
// credentialprovider/secrets.MakeDockerKeyring). Only a secret of type
// kubernetes.io/dockerconfigjson (its .dockerconfigjson) or
// kubernetes.io/dockercfg (its .dockercfg) gives credentials; any other
// is ignored, as by the kubelet.
type Keyring struct {
	entries []keyringEntry
}

type keyringEntry struct {
	// key is the registry as the secret names it, without its scheme:
	// a host, or a host and a path ("registry.kubesim.io/team").
	key  string
	cred Credential
}

// dockerConfigEntry is one registry of a docker config file.
type dockerConfigEntry struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Auth     string `json:"auth"`
}

// dockerHubKey is where Docker Hub's credentials are filed: kubectl
// create secret docker-registry's default server,
// https://index.docker.io/v1/, is read as this host.
const dockerHubKey = "index.docker.io"

// MakeKeyring reads the credentials of secrets, in their order.
func MakeKeyring(secrets []corev1.Secret) Keyring {
	var k Keyring
	for _, s := range secrets {
		var auths map[string]dockerConfigEntry
		switch {
		case s.Type == corev1.SecretTypeDockerConfigJson && len(s.Data[corev1.DockerConfigJsonKey]) > 0:
			var cfg struct {
				Auths map[string]dockerConfigEntry `json:"auths"`
			}
			if json.Unmarshal(s.Data[corev1.DockerConfigJsonKey], &cfg) != nil {
				continue // the API server refuses such a secret
			}
			auths = cfg.Auths
		case s.Type == corev1.SecretTypeDockercfg && len(s.Data[corev1.DockerConfigKey]) > 0:
			if json.Unmarshal(s.Data[corev1.DockerConfigKey], &auths) != nil {
				continue
			}
		default:
			continue
		}
		locs := make([]string, 0, len(auths))
		for loc := range auths {
			locs = append(locs, loc)
		}
		// Sorted: a map's order is random, and the order of the
		// credentials is the order a pull tries them in.
		slices.Sort(locs)
		for _, loc := range locs {
			if key, ok := keyringKey(loc); ok {
				k.entries = append(k.entries, keyringEntry{key: key, cred: credentialOf(auths[loc])})
			}
		}
	}
	return k
}

// credentialOf reads an entry: "auth" (base64 of user:password) wins
// over username and password, as in docker's own config.
func credentialOf(e dockerConfigEntry) Credential {
	c := Credential{Username: e.Username, Password: e.Password}
	if e.Auth != "" {
		if raw, err := base64.StdEncoding.DecodeString(e.Auth); err == nil {
			if user, pass, ok := strings.Cut(string(raw), ":"); ok {
				c = Credential{Username: user, Password: pass}
			}
		}
	}
	return c
}

// keyringKey is where the credentials of a config's location are filed:
// its host and path without the scheme, /v1/ and /v2/ standing for the
// host alone (the docker client's rule).
func keyringKey(loc string) (string, bool) {
	value := loc
	if !strings.HasPrefix(value, "https://") && !strings.HasPrefix(value, "http://") {
		value = "https://" + value
	}
	u, err := url.Parse(value)
	if err != nil || u.Host == "" {
		return "", false
	}
	p := u.Path
	if strings.HasPrefix(p, "/v1/") || strings.HasPrefix(p, "/v2/") {
		p = p[3:]
	}
	if p == "" || p == "/" {
		return u.Host, true
	}
	return u.Host + p, true
}

// Lookup is the credentials for a pull of ref: those whose key matches
// the repository (host by glob, same port, the key's path a prefix of the
// repository's), else Docker Hub's for a Docker Hub image.
func (k Keyring) Lookup(ref Ref) []Credential {
	var out []Credential
	for _, e := range k.entries {
		if keyMatches(e.key, ref.Name) {
			out = append(out, e.cred)
		}
	}
	if len(out) > 0 || ref.Domain != DockerHub {
		return out
	}
	for _, e := range k.entries {
		if e.key == dockerHubKey {
			out = append(out, e.cred)
		}
	}
	return out
}

// keyMatches is the keyring's URLsMatch: key's host parts match target's
// as globs (*.kubesim.io), the ports are equal, and key's path is a
// prefix of target's.
func keyMatches(key, target string) bool {
	kHost, kPath, _ := strings.Cut(key, "/")
	tHost, tPath, _ := strings.Cut(target, "/")
	kName, kPort, _ := strings.Cut(kHost, ":")
	tName, tPort, _ := strings.Cut(tHost, ":")
	if kPort != tPort {
		return false
	}
	kParts, tParts := strings.Split(kName, "."), strings.Split(tName, ".")
	if len(kParts) != len(tParts) {
		return false
	}
	for i := range kParts {
		if ok, err := path.Match(kParts[i], tParts[i]); err != nil || !ok {
			return false
		}
	}
	return strings.HasPrefix(tPath, kPath)
}
