package labels

import (
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// prints to a canonical form that parses back to an equal selector, which
// selects the same label sets.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"", "x", "!x", "x=a", "x==a", "x!=a", "x in (a,b)", "x notin ()", "x in (,a,,)",
		"x>3", "x<-3", "a=1,b in (c),!d,e", "example.com/app=web", "x in (in)", "in in (notin)",
		"x=a b", "x,", ",", "((", "!!x", "x!==a", "x>>1", "x\x00y", "x = \t\n a",
	} {
		f.Add(seed, "x=a;b=c;a=1;d=3")
	}
	f.Fuzz(func(t *testing.T, in, labelSpec string) {
		s, err := Parse(in)
		if err != nil {
			if s != nil {
				t.Fatalf("Parse(%q) returned a selector with error %v", in, err)
			}
			return
		}
		text := s.String()
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) gave String %q which does not parse: %v", in, text, err)
		}
		if again.String() != text {
			t.Fatalf("String not canonical: %q -> %q -> %q", in, text, again.String())
		}
		ls := Set{}
		for _, kv := range strings.Split(labelSpec, ";") {
			k, v, _ := strings.Cut(kv, "=")
			ls[k] = v
		}
		// Also test against the selector's own keys, so matches happen.
		reqs, _ := s.Requirements()
		withKeys := Set{}
		for i, r := range reqs {
			if i%2 == 0 {
				withKeys[r.Key()] = ls["a"]
			}
			if vals := r.Values(); len(vals) > 0 && i%3 != 0 {
				withKeys[r.Key()] = vals[0]
			}
		}
		for _, set := range []Set{ls, withKeys, {}} {
			if s.Matches(set) != again.Matches(set) {
				t.Fatalf("%q and its String %q disagree on %v", in, text, set)
			}
		}
	})
}
