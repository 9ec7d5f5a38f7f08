package serviceaccount

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"strings"
)

// A JSON Web Token (RFC 7519) in its compact form is three base64url
// parts joined by dots:
//
//	BASE64URL(header) . BASE64URL(claims) . BASE64URL(signature)
//
// The header names the algorithm and the key; the signature covers the
// first two parts exactly as sent. kube-apiserver signs with RS256 or
// ES256 (go-jose); kubesim signs with ES256: ECDSA on P-256 over SHA-256,
// the signature being r and s as two 32-byte big-endian numbers (RFC 7518
// section 3.4), not the ASN.1 form crypto/ecdsa uses by default.

// jwtHeader is the JOSE header.
type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid,omitempty"`
	Typ string `json:"typ,omitempty"`
}

// algES256 is the only algorithm kubesim signs and accepts; refusing the
// others (above all "none") is what keeps an attacker from choosing how
// the token is checked.
const algES256 = "ES256"

// es256Size is the byte length of r and of s for P-256.
const es256Size = 32

// KeyID names a public key as Kubernetes does (keyIDFromPublicKey): the
// base64url SHA-256 of its DER form. The key set of the issuer discovery
// endpoints (openidmetadata.go) publishes it, so that a verifier picks the
// key a token names.
func KeyID(pub *ecdsa.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// signJWT returns the compact ES256 JWT of claims.
func signJWT(key *ecdsa.PrivateKey, kid string, claims any, rand io.Reader) (string, error) {
	header, err := json.Marshal(jwtHeader{Alg: algES256, Kid: kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	signingInput := base64.RawURLEncoding.EncodeToString(header) + "." + base64.RawURLEncoding.EncodeToString(payload)
	digest := sha256.Sum256([]byte(signingInput))
	r, s, err := ecdsa.Sign(rand, key, digest[:])
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	sig := make([]byte, 2*es256Size)
	r.FillBytes(sig[:es256Size])
	s.FillBytes(sig[es256Size:])
	return signingInput + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// tokenError is a constant error, so that sentinels need no package
// variables.
type tokenError string

func (e tokenError) Error() string { return string(e) }

// Errors of parseJWT; the authenticator reports them and the client sees
// only 401 Unauthorized.
const (
	errMalformed = tokenError("token is not a compact JWT")
	errSignature = tokenError("token signature is invalid")
)

// looksLikeJWT reports whether token has the three-part shape, so that an
// opaque token of the token file is left to the other authenticators.
func looksLikeJWT(token string) bool {
	return strings.Count(token, ".") == 2
}

// parseJWT checks the signature of token with pub and decodes its claims
// into out. Nothing of the payload is trusted before the signature is.
func parseJWT(token string, pub *ecdsa.PublicKey, kid string, out any) error {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errMalformed
	}
	headerJSON, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return fmt.Errorf("%w: header: %v", errMalformed, err)
	}
	var h jwtHeader
	if err := json.Unmarshal(headerJSON, &h); err != nil {
		return fmt.Errorf("%w: header: %v", errMalformed, err)
	}
	if h.Alg != algES256 {
		return fmt.Errorf("token algorithm %q is not %s", h.Alg, algES256)
	}
	if h.Kid != "" && h.Kid != kid {
		return fmt.Errorf("token key id %q is not the server's", h.Kid)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 2*es256Size {
		return errSignature
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	r := new(big.Int).SetBytes(sig[:es256Size])
	s := new(big.Int).SetBytes(sig[es256Size:])
	if !ecdsa.Verify(pub, digest[:], r, s) {
		return errSignature
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return fmt.Errorf("%w: claims: %v", errMalformed, err)
	}
	if err := json.Unmarshal(payload, out); err != nil {
		return fmt.Errorf("%w: claims: %v", errMalformed, err)
	}
	return nil
}
