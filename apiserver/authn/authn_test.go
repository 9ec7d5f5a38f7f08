package authn

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTokenCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]UserInfo
		err  string
	}{
		{"empty file", "", map[string]UserInfo{}, ""},
		{"three columns", "tok,alice,1001\n", map[string]UserInfo{"tok": {Name: "alice", UID: "1001"}}, ""},
		{"one group", "tok,alice,1001,dev\n", map[string]UserInfo{"tok": {Name: "alice", UID: "1001", Groups: []string{"dev"}}}, ""},
		{"quoted groups", "tok,alice,1001,\"dev,ops\"\n", map[string]UserInfo{"tok": {Name: "alice", UID: "1001", Groups: []string{"dev", "ops"}}}, ""},
		{"empty group list", "tok,alice,1001,\n", map[string]UserInfo{"tok": {Name: "alice", UID: "1001"}}, ""},
		{"extra columns ignored", "tok,alice,1001,dev,extra\n", map[string]UserInfo{"tok": {Name: "alice", UID: "1001", Groups: []string{"dev"}}}, ""},
		{"several users, blank line", "a,alice,1\n\nb,bob,2,\"x\"\n", map[string]UserInfo{"a": {Name: "alice", UID: "1"}, "b": {Name: "bob", UID: "2", Groups: []string{"x"}}}, ""},
		{"no trailing newline", "a,alice,1", map[string]UserInfo{"a": {Name: "alice", UID: "1"}}, ""},
		{"empty token skipped", ",alice,1\nb,bob,2\n", map[string]UserInfo{"b": {Name: "bob", UID: "2"}}, ""},
		{"duplicate: later wins", "a,alice,1\na,bob,2\n", map[string]UserInfo{"a": {Name: "bob", UID: "2"}}, ""},
		{"CRLF", "a,alice,1\r\n", map[string]UserInfo{"a": {Name: "alice", UID: "1"}}, ""},
		{"too few columns", "a,alice,1\nb,bob\n", nil, "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2 (line 2)"},
		{"one column", "\n\njusttoken\n", nil, "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 1 (line 3)"},
		{"bad quote", "a,alice,1\nb,\"bob,2\n", nil, "token file 'tokens.csv': parse error on line 2, column 10: extraneous or missing \" in quoted-field"},
		{"bare quote", "a,al\"ice,1\n", nil, "token file 'tokens.csv': parse error on line 1, column 5: bare \" in non-quoted-field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTokenCSV(strings.NewReader(tt.in), "tokens.csv")
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func FuzzParseTokenCSV(f *testing.F) {
	for _, s := range []string{"", "a,b,c", "a,b,c,\"d,e\"\n", ",b,c", "a,b", "\"", "a,\"b\nc\",d", "a,b,c\r\n\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseTokenCSV(strings.NewReader(in), "f")
		if err != nil {
			if got != nil || !strings.HasPrefix(err.Error(), "token file 'f'") {
				t.Fatalf("bad error result %v, %v", got, err)
			}
			return
		}
		a := NewTokenAuthenticator(got)
		for tok, u := range got {
			if tok == "" {
				t.Fatal("empty token accepted")
			}
			for _, g := range u.Groups {
				if g == "" {
					t.Fatal("empty group kept")
				}
			}
			found, ok := a.AuthenticateToken(tok)
			if !ok || found.Name != u.Name || found.UID != u.UID {
				t.Fatalf("token %q not found as %v", tok, u)
			}
		}
	})
}

func TestNewTokenFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.csv")
	require.NoError(t, os.WriteFile(path, []byte("tok,alice,1,\"a,b\"\n"), 0o600))
	a, err := NewTokenFile(path)
	require.NoError(t, err)
	u, ok := a.AuthenticateToken("tok")
	require.True(t, ok)
	assert.Equal(t, &UserInfo{Name: "alice", UID: "1", Groups: []string{"a", "b"}}, u)
	_, ok = a.AuthenticateToken("tok2")
	assert.False(t, ok)
	_, ok = a.AuthenticateToken("to")
	assert.False(t, ok)

	require.NoError(t, os.WriteFile(path, []byte("tok,alice\n"), 0o600))
	_, err = NewTokenFile(path)
	require.EqualError(t, err, "token file '"+path+"' must have at least 3 columns (token, user name, user uid), found 2 (line 1)")

	_, err = NewTokenFile(filepath.Join(dir, "absent.csv"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "absent.csv"))
}

func TestBearerAuthentication(t *testing.T) {
	a := NewTokenAuthenticator(map[string]UserInfo{"good": {Name: "alice", UID: "1", Groups: []string{"dev"}}})
	tests := []struct {
		header string
		ok     bool
		err    string
	}{
		{"", false, ""},
		{"Basic Zm9vOmJhcg==", false, ""},
		{"Bearer", false, ""},
		{"Bearer  good", false, ""}, // two spaces: refused as in Kubernetes
		{"Bearer good", true, ""},
		{"bearer good", true, ""},
		{"  Bearer good  ", true, ""},
		{"Bearer good extra", true, ""},
		{"Bearer bad", false, "invalid bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.header, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/api", nil)
			if tt.header != "" {
				req.Header.Set("Authorization", tt.header)
			}
			u, ok, err := a.AuthenticateRequest(req)
			assert.Equal(t, tt.ok, ok)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
			} else {
				assert.NoError(t, err)
			}
			if tt.ok {
				assert.Equal(t, "alice", u.Name)
			}
		})
	}
}

func TestWithAuthentication(t *testing.T) {
	a := NewTokenAuthenticator(map[string]UserInfo{
		"good": {Name: "alice", UID: "1", Groups: []string{"dev"}},
		"dup":  {Name: "bob", Groups: []string{AllAuthenticated}},
	})
	var seen *UserInfo
	var sawAuthHeader bool
	h := WithAuthentication(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = UserFrom(r.Context())
		sawAuthHeader = r.Header.Get("Authorization") != ""
		w.WriteHeader(http.StatusTeapot)
	}), a, nil)

	for _, hdr := range []string{"", "Bearer nope", "Basic x"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
		if hdr != "" {
			req.Header.Set("Authorization", hdr)
		}
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusUnauthorized, rec.Code, hdr)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		assert.JSONEq(t, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, rec.Body.String())
	}
	assert.Nil(t, seen, "the handler must not run unauthenticated")

	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
	req.Header.Set("Authorization", "Bearer good")
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusTeapot, rec.Code)
	require.NotNil(t, seen)
	assert.Equal(t, &UserInfo{Name: "alice", UID: "1", Groups: []string{"dev", AllAuthenticated}}, seen)
	assert.False(t, sawAuthHeader, "the credential is removed after authentication")
	again, _ := a.AuthenticateToken("good")
	assert.Equal(t, []string{"dev"}, again.Groups, "the authenticator's user is not modified")

	req = httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Authorization", "Bearer dup")
	h.ServeHTTP(httptest.NewRecorder(), req)
	assert.Equal(t, []string{AllAuthenticated}, seen.Groups, "system:authenticated is not added twice")

	// A custom failure handler replaces the default.
	custom := WithAuthentication(http.NotFoundHandler(), a, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(499)
	}))
	rec = httptest.NewRecorder()
	custom.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, 499, rec.Code)

	_, ok := UserFrom(httptest.NewRequest(http.MethodGet, "/", nil).Context())
	assert.False(t, ok)
}

func TestUnion(t *testing.T) {
	fail := AuthenticatorFunc(func(*http.Request) (*UserInfo, bool, error) { return nil, false, errors.New("boom") })
	none := AuthenticatorFunc(func(*http.Request) (*UserInfo, bool, error) { return nil, false, nil })
	yes := AuthenticatorFunc(func(*http.Request) (*UserInfo, bool, error) { return &UserInfo{Name: "x"}, true, nil })
	req := httptest.NewRequest(http.MethodGet, "/", nil)

	u, ok, err := Union(fail, none, yes).AuthenticateRequest(req)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, "x", u.Name)

	_, ok, err = Union(fail, none).AuthenticateRequest(req)
	assert.False(t, ok)
	assert.EqualError(t, err, "boom")

	_, ok, err = Union(none).AuthenticateRequest(req)
	assert.False(t, ok)
	assert.NoError(t, err)
}

func TestGenerateToken(t *testing.T) {
	tok, err := GenerateToken(bytes.NewReader(make([]byte, 32)))
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("A", 43), tok)
	_, err = GenerateToken(strings.NewReader("short"))
	assert.Error(t, err)
}

func TestEnsureTokenFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	rnd := bytes.NewReader(bytes.Repeat([]byte{7}, 64))
	path, token, err := EnsureTokenFile(dir, rnd)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, TokenFileName), path)
	assert.Len(t, token, 43)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	a, err := NewTokenFile(path)
	require.NoError(t, err)
	u, ok := a.AuthenticateToken(token)
	require.True(t, ok)
	assert.Equal(t, &UserInfo{Name: AdminUser, UID: AdminUser, Groups: []string{SystemPrivilegedGroup}}, u)

	// The second start reads the same token and leaves the file alone.
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	path2, token2, err := EnsureTokenFile(dir, strings.NewReader("")) // no randomness needed
	require.NoError(t, err)
	assert.Equal(t, path, path2)
	assert.Equal(t, token, token2)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)

	// The administrator is the first system:masters user, wherever it is.
	require.NoError(t, os.WriteFile(path, []byte("u1,bob,2,dev\nroot-tok,root,0,\"x,system:masters\"\n"), 0o600))
	_, token3, err := EnsureTokenFile(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, "root-tok", token3)

	require.NoError(t, os.WriteFile(path, []byte("u1,bob,2,dev\n"), 0o600))
	_, _, err = EnsureTokenFile(dir, nil)
	require.EqualError(t, err, "token file '"+path+"' has no user in group system:masters")

	require.NoError(t, os.WriteFile(path, []byte("u1,bob\n"), 0o600))
	_, _, err = EnsureTokenFile(dir, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	got, _ := os.ReadFile(path)
	assert.Equal(t, "u1,bob\n", string(got), "a broken token file is not overwritten")

	_, _, err = EnsureTokenFile(t.TempDir(), strings.NewReader("short"))
	assert.Error(t, err)
}

func TestErrInvalidTokenIsComparable(t *testing.T) {
	a := NewTokenAuthenticator(nil)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Authorization", "Bearer x")
	_, _, err := a.AuthenticateRequest(req)
	assert.ErrorIs(t, err, ErrInvalidToken)
}
