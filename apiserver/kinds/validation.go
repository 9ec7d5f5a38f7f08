package kinds

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/api/field"
	"github.com/kubesim/kubesim/api/labels"
)

// The messages below are those of k8s.io/apimachinery/pkg/util/validation,
// word for word: clients and students compare them with a real cluster.
const (
	dns1123LabelFmt    = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1035LabelFmt    = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	configMapKeyFmt    = "[-._a-zA-Z0-9]+"
	configMapKeyErrMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
	percentFmt         = "[0-9]+%"
	percentErrMsg      = "a valid percent string must be a numeric string followed by an ending '%'"
	portRangeErrMsg    = "must be between 1 and 65535, inclusive"
	nonNegativeErrMsg  = "must be greater than or equal to 0"
	immutableErrMsg    = "field is immutable"
	dnsLabelMaxLength  = 63
	subdomainMaxLength = 253
	// maxSecretSize bounds the data of a Secret or ConfigMap (1 MiB).
	maxSecretSize = 1 * 1024 * 1024
)

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

// matchesLabel reports whether s is first, then [-a-z0-9]*, then an
// alphanumeric end; first decides between RFC 1123 and DNS-1035 labels.
func matchesLabel(s string, first func(byte) bool) bool {
	if s == "" || !first(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !isLowerAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// IsDNS1123Label returns why value is not a lowercase RFC 1123 label (a
// namespace or container name), or nil.
func IsDNS1123Label(value string) []string {
	var errs []string
	if len(value) > dnsLabelMaxLength {
		errs = append(errs, maxLenError(dnsLabelMaxLength))
	}
	if !matchesLabel(value, isLowerAlnum) {
		errs = append(errs, labels.RegexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"))
	}
	return errs
}

// IsDNS1035Label returns why value is not a DNS-1035 label (a service
// name: it must start with a letter), or nil.
func IsDNS1035Label(value string) []string {
	var errs []string
	if len(value) > dnsLabelMaxLength {
		errs = append(errs, maxLenError(dnsLabelMaxLength))
	}
	if !matchesLabel(value, func(c byte) bool { return c >= 'a' && c <= 'z' }) {
		errs = append(errs, labels.RegexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"))
	}
	return errs
}

// IsConfigMapKey returns why value cannot be a key of a ConfigMap or Secret
// (it becomes a file name in a volume), or nil.
func IsConfigMapKey(value string) []string {
	var errs []string
	if len(value) > subdomainMaxLength {
		errs = append(errs, maxLenError(subdomainMaxLength))
	}
	ok := value != ""
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			ok = false
			break
		}
	}
	if !ok {
		errs = append(errs, labels.RegexError(configMapKeyErrMsg, configMapKeyFmt, "key.name", "KEY_NAME", "key-name"))
	}
	switch {
	case value == ".":
		errs = append(errs, "must not be '.'")
	case value == "..":
		errs = append(errs, "must not be '..'")
	case strings.HasPrefix(value, ".."):
		errs = append(errs, "must not start with '..'")
	}
	return errs
}

// IsValidPortName returns why port cannot name a port (an IANA service
// name: at most 15 characters, at least one letter), or nil.
func IsValidPortName(port string) []string {
	var errs []string
	if len(port) > 15 {
		errs = append(errs, maxLenError(15))
	}
	charset, letter := port != "", false
	for i := 0; i < len(port); i++ {
		c := port[i]
		if c >= 'a' && c <= 'z' {
			letter = true
		} else if !(c >= '0' && c <= '9' || c == '-') {
			charset = false
		}
	}
	if !charset {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !letter {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(port, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(port) > 0 && (port[0] == '-' || port[len(port)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// validPortNum reports whether p is a usable port number.
func validPortNum(p int32) bool { return p >= 1 && p <= 65535 }

// validateString is one Invalid error at p for each reason is gives
// against value (is being IsDNS1123Label, labels.IsDNS1123Subdomain and
// the like).
func validateString(value string, p *field.Path, is func(string) []string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range is(value) {
		errs = append(errs, field.Invalid(p, value, msg))
	}
	return errs
}

// validateDNS1123Label turns the reasons into Invalid errors at p.
func validateDNS1123Label(value string, p *field.Path) field.ErrorList {
	return validateString(value, p, IsDNS1123Label)
}

// validateNonnegative is Kubernetes' ValidateNonnegativeField.
func validateNonnegative(v int64, p *field.Path) field.ErrorList {
	if v < 0 {
		return field.ErrorList{field.Invalid(p, v, nonNegativeErrMsg)}
	}
	return nil
}

// validateLabels is metav1 validation's ValidateLabels: every key a
// qualified name, every value a label value, all reported at p.
func validateLabels(ls map[string]string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range sortedKeys(ls) {
		for _, msg := range labels.IsQualifiedName(k) {
			errs = append(errs, field.Invalid(p, k, msg))
		}
		for _, msg := range labels.IsValidLabelValue(ls[k]) {
			errs = append(errs, field.Invalid(p, ls[k], msg))
		}
	}
	return errs
}

// validateLabelSelector is metav1 validation's ValidateLabelSelector.
func validateLabelSelector(sel *metav1.LabelSelector, p *field.Path) field.ErrorList {
	if sel == nil {
		return nil
	}
	errs := validateLabels(sel.MatchLabels, p.Child("matchLabels"))
	for i, req := range sel.MatchExpressions {
		rp := p.Child("matchExpressions").Index(i)
		switch req.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			if len(req.Values) == 0 {
				errs = append(errs, field.Required(rp.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
			}
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			if len(req.Values) > 0 {
				errs = append(errs, field.Forbidden(rp.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
			}
		default:
			errs = append(errs, field.Invalid(rp.Child("operator"), req.Operator, "not a valid selector operator"))
		}
		for _, msg := range labels.IsQualifiedName(req.Key) {
			errs = append(errs, field.Invalid(rp.Child("key"), req.Key, msg))
		}
		for j, v := range req.Values {
			for _, msg := range labels.IsValidLabelValue(v) {
				errs = append(errs, field.Invalid(rp.Child("values").Index(j), v, msg))
			}
		}
	}
	return errs
}

// formatLabelSelector is metav1.FormatLabelSelector, the SELECTOR column.
func formatLabelSelector(sel *metav1.LabelSelector) string {
	s, err := api.LabelSelectorAsSelector(sel)
	if err != nil {
		return "<error>"
	}
	if str := s.String(); str != "" {
		return str
	}
	return "<none>"
}

// selectorValue prints a label selector in an error the way Kubernetes
// does, as a v1.LabelSelector Go literal.
type selectorValue struct{ sel metav1.LabelSelector }

// GoString implements fmt.GoStringer for field.FormatValue's %#v.
func (v selectorValue) GoString() string {
	return strings.ReplaceAll(fmt.Sprintf("%#v", v.sel), "api.", "v1.")
}

// validatePercentOrInt is apps validation's ValidatePositiveIntOrPercent.
func validatePercentOrInt(v intstr.IntOrString, p *field.Path) field.ErrorList {
	if v.Type == intstr.String {
		if _, ok := percentValue(v); !ok {
			return field.ErrorList{field.Invalid(p, v, labels.RegexError(percentErrMsg, percentFmt, "1%", "93%"))}
		}
		return nil
	}
	return validateNonnegative(int64(v.IntVal), p)
}

// percentValue parses "25%".
func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || !strings.HasSuffix(v.StrVal, "%") || len(v.StrVal) < 2 {
		return 0, false
	}
	digits := v.StrVal[:len(v.StrVal)-1]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil
}

// intOrPercent is the number an int-or-percent holds, ignoring the unit.
func intOrPercent(v *intstr.IntOrString) int {
	if v == nil {
		return 0
	}
	if n, ok := percentValue(*v); ok {
		return n
	}
	return v.IntValue()
}

// validIP reports whether s is an IPv4 or IPv6 address.
func validIP(s string) bool {
	_, err := netip.ParseAddr(s)
	return err == nil
}

// sortedKeys returns the keys of m in order, so that errors come out in a
// stable order (Go map iteration is random).
func sortedKeys[K ~string, V any](m map[K]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	return keys
}

// jsonEqual compares two values as their JSON forms: nil and empty lists
// and maps are equal, as with Kubernetes' semantic equality.
func jsonEqual(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func ptr[T any](v T) *T { return &v }

func labelsOf(m map[string]string) labels.Set { return labels.Set(m) }

func itoa(n int) string { return strconv.Itoa(n) }
