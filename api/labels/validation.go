package labels

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/api/field"
)

// The formats below are those of k8s.io/apimachinery/pkg/util/validation;
// they are quoted in error messages, so they must stay textually identical.
const (
	qnameCharFmt        = "[A-Za-z0-9]"
	qnameExtCharFmt     = "[-A-Za-z0-9_.]"
	qualifiedNameFmt    = "(" + qnameCharFmt + qnameExtCharFmt + "*)?" + qnameCharFmt
	qualifiedNameErrMsg = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

	labelValueFmt    = "(" + qualifiedNameFmt + ")?"
	labelValueErrMsg = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"

	dns1123LabelFmt          = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt      = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	dns1123SubdomainErrorMsg = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
)

// Length limits of label keys and values, as in Kubernetes.
const (
	// QualifiedNameMaxLength bounds the name part of a label key.
	QualifiedNameMaxLength = 63
	// LabelValueMaxLength bounds a label value.
	LabelValueMaxLength = 63
	// DNS1123SubdomainMaxLength bounds the prefix part of a label key.
	DNS1123SubdomainMaxLength = 253
)

// The checks below are hand-written equivalents of the regular expressions
// quoted in the messages; writing them out avoids package-level compiled
// regexps (the project keeps no package state) and is faster in fuzzing.

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// matchesQualifiedName is ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$.
func matchesQualifiedName(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// matchesDNS1123Label is ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$.
func matchesDNS1123Label(s string) bool {
	isLowerAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// matchesDNS1123Subdomain is labels joined by dots.
func matchesDNS1123Subdomain(s string) bool {
	for _, l := range strings.Split(s, ".") {
		if !matchesDNS1123Label(l) {
			return false
		}
	}
	return true
}

// emptyError, maxLenError and RegexError build the message fragments that
// Kubernetes' validation package uses, word for word.
func emptyError() string { return "must be non-empty" }

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// RegexError builds the "(e.g. 'a',  or 'b', regex used for validation
// is '...')" tail exactly as Kubernetes' validation.RegexError does,
// double space included; apiserver/kinds' validation uses it too.
func RegexError(msg, format string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + format + "')"
	}
	msg += " (e.g. "
	for i, e := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + e + "', "
	}
	return msg + "regex used for validation is '" + format + "')"
}

// IsDNS1123Subdomain returns the reasons value is not a lowercase RFC 1123
// subdomain (such as "example.com"), or nil when it is one.
func IsDNS1123Subdomain(value string) []string {
	var errs []string
	if len(value) > DNS1123SubdomainMaxLength {
		errs = append(errs, maxLenError(DNS1123SubdomainMaxLength))
	}
	if !matchesDNS1123Subdomain(value) {
		errs = append(errs, RegexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"))
	}
	return errs
}

// IsQualifiedName returns the reasons value is not a valid label key (an
// optional DNS subdomain prefix and '/', then a name of at most 63
// characters), or nil when it is valid.
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if prefix == "" {
			errs = append(errs, "prefix part "+emptyError())
		} else if msgs := IsDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a qualified name "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if name == "" {
		errs = append(errs, "name part "+emptyError())
	} else if len(name) > QualifiedNameMaxLength {
		errs = append(errs, "name part "+maxLenError(QualifiedNameMaxLength))
	}
	if !matchesQualifiedName(name) {
		errs = append(errs, "name part "+RegexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue returns the reasons value is not a valid label value
// (empty, or at most 63 characters of the qualified-name alphabet), or nil.
func IsValidLabelValue(value string) []string {
	var errs []string
	if len(value) > LabelValueMaxLength {
		errs = append(errs, maxLenError(LabelValueMaxLength))
	}
	if value != "" && !matchesQualifiedName(value) {
		errs = append(errs, RegexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"))
	}
	return errs
}

func validateLabelKey(k string, path *field.Path) *field.Error {
	if errs := IsQualifiedName(k); len(errs) != 0 {
		return field.Invalid(path, k, strings.Join(errs, "; "))
	}
	return nil
}

func validateLabelValue(k, v string, path *field.Path) *field.Error {
	if errs := IsValidLabelValue(v); len(errs) != 0 {
		return field.Invalid(path.Key(k), v, strings.Join(errs, "; "))
	}
	return nil
}
