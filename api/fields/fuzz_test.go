package fields

import (
	"strings"
	"testing"
)

// FuzzParseSelector checks that ParseSelector never panics and that what
// it accepts prints canonically and parses back to a selector that selects
// the same field sets.
func FuzzParseSelector(f *testing.F) {
	for _, seed := range []string{
		"", "a=b", "a==b", "a!=b", "a=b,c!=d", `a=\,\=\\`, `a\,b=c`, `a\=b`, `a\!=b`, "a=b=c",
		`a=\`, `a=\q`, ",,", "=", "!=", "==", "a = b", "a==x,a=b", "\xff=\xfe",
	} {
		f.Add(seed, "a=b;c=d;a\\,b=c")
	}
	f.Fuzz(func(t *testing.T, in, fieldSpec string) {
		s, err := ParseSelector(in)
		if err != nil {
			if s != nil {
				t.Fatalf("ParseSelector(%q) returned a selector with error %v", in, err)
			}
			return
		}
		text := s.String()
		again, err := ParseSelector(text)
		if err != nil {
			t.Fatalf("ParseSelector(%q) gave String %q which does not parse: %v", in, text, err)
		}
		if again.String() != text {
			t.Fatalf("String not canonical: %q -> %q -> %q", in, text, again.String())
		}
		fs := Set{}
		for _, kv := range strings.Split(fieldSpec, ";") {
			k, v, _ := strings.Cut(kv, "=")
			fs[k] = v
		}
		own := Set{}
		for i, r := range s.Requirements() {
			if i%2 == 0 {
				own[r.Field] = r.Value
			}
		}
		for _, set := range []Set{fs, own, {}} {
			if s.Matches(set) != again.Matches(set) {
				t.Fatalf("%q and its String %q disagree on %v", in, text, set)
			}
		}
	})
}
