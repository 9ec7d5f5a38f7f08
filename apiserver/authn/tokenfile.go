package authn

import (
	"bytes"
	"crypto/subtle"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TokenAuthenticator accepts static bearer tokens, like the
// --token-auth-file authenticator of kube-apiserver.
type TokenAuthenticator struct {
	tokens map[string]*UserInfo
}

// NewTokenAuthenticator accepts the tokens of the map, each as its user.
func NewTokenAuthenticator(tokens map[string]UserInfo) *TokenAuthenticator {
	a := &TokenAuthenticator{tokens: make(map[string]*UserInfo, len(tokens))}
	for tok, u := range tokens {
		a.tokens[tok] = u.DeepCopy()
	}
	return a
}

// NewTokenFile reads a --token-auth-file CSV file (see ParseTokenCSV).
func NewTokenFile(path string) (*TokenAuthenticator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError names the file
	}
	defer f.Close()
	tokens, err := ParseTokenCSV(f, path)
	if err != nil {
		return nil, err
	}
	return NewTokenAuthenticator(tokens), nil
}

// ParseTokenCSV parses the static token file format: one record per line,
// "token,user name,user uid" optionally followed by a quoted,
// comma-separated group list ("token,alice,1001,\"dev,ops\""). As in
// Kubernetes, records with an empty token are skipped and a repeated token
// takes the later record; unlike Kubernetes, empty group names are dropped.
// name (usually the file path) and the line number appear in errors.
func ParseTokenCSV(r io.Reader, name string) (map[string]UserInfo, error) {
	records, err := parseTokenRecords(r, name)
	if err != nil {
		return nil, err
	}
	tokens := make(map[string]UserInfo, len(records))
	for _, rec := range records {
		tokens[rec.token] = rec.user
	}
	return tokens, nil
}

// tokenRecord is one line of a token file.
type tokenRecord struct {
	token string
	user  UserInfo
}

// parseTokenRecords returns the records in file order, empty tokens
// skipped.
func parseTokenRecords(r io.Reader, name string) ([]tokenRecord, error) {
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1
	var out []tokenRecord
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("token file '%s': %w", name, err) // csv errors carry the line
		}
		line, _ := reader.FieldPos(0)
		if len(record) < 3 {
			return nil, fmt.Errorf("token file '%s' must have at least 3 columns (token, user name, user uid), found %d (line %d)", name, len(record), line)
		}
		if record[0] == "" {
			continue
		}
		u := UserInfo{Name: record[1], UID: record[2]}
		if len(record) >= 4 {
			for _, g := range strings.Split(record[3], ",") {
				if g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		out = append(out, tokenRecord{token: record[0], user: u})
	}
}

// AuthenticateToken returns the user of a token. The comparison runs in
// constant time per token so that response timing does not leak a prefix.
func (a *TokenAuthenticator) AuthenticateToken(token string) (*UserInfo, bool) {
	var found *UserInfo
	for t, u := range a.tokens {
		if subtle.ConstantTimeCompare([]byte(t), []byte(token)) == 1 {
			found = u
		}
	}
	if found == nil {
		return nil, false
	}
	return found.DeepCopy(), true
}

// AuthenticateRequest authenticates the request's bearer token. A request
// without one is not an error (ok false, err nil), so another
// authenticator may try; an unknown token is "invalid bearer token".
func (a *TokenAuthenticator) AuthenticateRequest(req *http.Request) (*UserInfo, bool, error) {
	token, ok := bearerToken(req)
	if !ok {
		return nil, false, nil
	}
	u, ok := a.AuthenticateToken(token)
	if !ok {
		return nil, false, ErrInvalidToken
	}
	return u, true, nil
}

// TokenFileName is the static token file EnsureTokenFile keeps in the
// data directory.
const TokenFileName = "tokens.csv"

// AdminUser is the user name of the generated admin token.
const AdminUser = "admin"

// GenerateToken returns a random bearer token of 256 bits read from rand,
// URL-safe base64 without padding (safe in CSV and HTTP headers).
func GenerateToken(rand io.Reader) (string, error) {
	b := make([]byte, 32)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// EnsureTokenFile returns the path of the static token file in dataDir and
// the token of its administrator (the first user in system:masters). On
// the first start it creates the file, mode 0600, with a new random token
// for AdminUser in system:masters. An existing file is never rewritten; if
// it has no system:masters user, that is an error naming the file.
func EnsureTokenFile(dataDir string, rand io.Reader) (path, adminToken string, err error) {
	path = filepath.Join(dataDir, TokenFileName)
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		records, err := parseTokenRecords(f, path)
		if err != nil {
			return "", "", err
		}
		for _, r := range records {
			if slices.Contains(r.user.Groups, SystemPrivilegedGroup) {
				return path, r.token, nil
			}
		}
		return "", "", fmt.Errorf("token file '%s' has no user in group %s", path, SystemPrivilegedGroup)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", "", err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", "", err
	}
	token, err := GenerateToken(rand)
	if err != nil {
		return "", "", err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write([]string{token, AdminUser, AdminUser, SystemPrivilegedGroup}); err != nil {
		return "", "", err
	}
	w.Flush()
	// O_EXCL: should another process create the file meanwhile, its token
	// is kept rather than overwritten.
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", "", err
	}
	if _, err := out.Write(buf.Bytes()); err != nil {
		out.Close()
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return path, token, nil
}
