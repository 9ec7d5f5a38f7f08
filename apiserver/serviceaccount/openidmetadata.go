package serviceaccount

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// The service account issuer discovery endpoints (kube-apiserver's
// ServiceAccountIssuerDiscovery): an OpenID Connect discovery document
// and the key set that verifies the tokens, so that a system outside the
// cluster (a cloud's workload identity, a vault) can check a pod's token
// with an ordinary OIDC library and no credentials of its own.
const (
	OpenIDConfigPath = "/.well-known/openid-configuration"
	JWKSPath         = "/openid/v1/jwks"
	// DiscoveryMaxAge is how long a client may cache both answers
	// (Cache-Control: public, max-age=3600), as kube-apiserver says.
	DiscoveryMaxAge = 3600
	// mimeJWKS is the key set's content type (RFC 7517).
	mimeJWKS = "application/jwk-set+json"
)

// openIDMetadata is the discovery document: the fields OIDC requires,
// with kube-apiserver's values.
type openIDMetadata struct {
	Issuer        string   `json:"issuer"`
	JWKSURI       string   `json:"jwks_uri"`
	ResponseTypes []string `json:"response_types_supported"`
	SubjectTypes  []string `json:"subject_types_supported"`
	SigningAlgs   []string `json:"id_token_signing_alg_values_supported"`
}

// jwk is one public key as RFC 7517 writes an EC key, in the member
// order go-jose (kube-apiserver's library) writes them.
type jwk struct {
	Use string `json:"use"`
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Crv string `json:"crv"`
	Alg string `json:"alg"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// JWKS is the key set: the one key that signs kubesim's tokens.
func (t *Tokens) JWKS() []byte {
	pub := &t.cfg.Key.PublicKey
	coord := func(n interface{ FillBytes([]byte) []byte }) string {
		b := make([]byte, es256Size)
		n.FillBytes(b)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{{Use: "sig", Kty: "EC", Kid: t.kid, Crv: "P-256", Alg: algES256, X: coord(pub.X), Y: coord(pub.Y)}}}
	b, _ := json.Marshal(set) // strings only: cannot fail
	return b
}

// OpenIDConfiguration is the discovery document naming jwksURI.
func (t *Tokens) OpenIDConfiguration(jwksURI string) []byte {
	b, _ := json.Marshal(openIDMetadata{Issuer: t.cfg.Issuer, JWKSURI: jwksURI,
		ResponseTypes: []string{"id_token"}, SubjectTypes: []string{"public"}, SigningAlgs: []string{algES256}})
	return b
}

// DiscoveryHandlers serves the two endpoints. jwksURI is where the
// document says the keys are (kube-apiserver's --service-account-jwks-uri);
// empty, it is this server's own JWKSPath at the host the client asked
// (kube-apiserver builds it from its external address, which kubesim,
// reached at whatever address the student's machine has, does not fix).
func (t *Tokens) DiscoveryHandlers(jwksURI string) (config, keys http.Handler) {
	config = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		uri := jwksURI
		if uri == "" {
			uri = (&url.URL{Scheme: "https", Host: r.Host, Path: JWKSPath}).String()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", DiscoveryMaxAge))
		_, _ = w.Write(t.OpenIDConfiguration(uri))
	})
	keys = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", mimeJWKS)
		w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", DiscoveryMaxAge))
		_, _ = w.Write(t.JWKS())
	})
	return config, keys
}
