package schema

import (
	"encoding/base64"
	"fmt"
	"net"
	"net/mail"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/kubesim/kubesim/api/field"
)

// formatCheckers are the string formats kubesim checks, after the strfmt
// registry kube-openapi uses. Any other format (and the numeric formats
// int32, int64, float, double, which only restate the type) is accepted
// without a check, as the apiserver strips formats it does not support.
var formatCheckers = map[string]func(string) bool{
	"byte":      isBase64,
	"password":  func(string) bool { return true },
	"date":      isDate,
	"date-time": isDateTime,
	"datetime":  isDateTime,
	"email":     isEmail,
	"hostname":  isHostname,
	"ipv4":      isIPv4,
	"ipv6":      isIPv6,
	"cidr":      isCIDR,
	"mac":       isMAC,
	"uri":       isURI,
	"uuid":      isUUID,
	"uuid3":     isUUID,
	"uuid4":     isUUID,
	"uuid5":     isUUID,
}

func isBase64(s string) bool {
	_, err := base64.StdEncoding.DecodeString(s)
	return err == nil
}

func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// dateTimeLayouts are the RFC 3339 spellings strfmt.ParseDateTime accepts.
var dateTimeLayouts = []string{
	time.RFC3339Nano,
	time.RFC3339,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04:05",
}

func isDateTime(s string) bool {
	for _, l := range dateTimeLayouts {
		if _, err := time.Parse(l, s); err == nil {
			return true
		}
	}
	return false
}

func isEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address != ""
}

var hostnameLabel = regexp.MustCompile(`^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?$`)

func isHostname(s string) bool {
	if s == "" || len(s) > 255 {
		return false
	}
	for _, l := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if !hostnameLabel.MatchString(l) {
			return false
		}
	}
	return true
}

func isIPv4(s string) bool {
	ip := net.ParseIP(s)
	return ip != nil && strings.Contains(s, ".") && !strings.Contains(s, ":")
}

func isIPv6(s string) bool {
	return net.ParseIP(s) != nil && strings.Contains(s, ":")
}

func isCIDR(s string) bool {
	_, _, err := net.ParseCIDR(s)
	return err == nil
}

func isMAC(s string) bool {
	_, err := net.ParseMAC(s)
	return err == nil
}

func isURI(s string) bool {
	_, err := url.ParseRequestURI(s)
	return err == nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

func isUUID(s string) bool { return uuidRE.MatchString(s) }

// dns1035LabelFmt and its message are Kubernetes' IsDNS1035Label wording,
// used for the kind of embedded resources.
const dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"

var dns1035Label = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func isDNS1035Label(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, "must be no more than 63 characters")
	}
	if !dns1035Label.MatchString(s) {
		errs = append(errs, dns1035LabelErrMsg)
	}
	return errs
}

// validateEmbeddedResource checks apiVersion and kind of an object marked
// x-kubernetes-embedded-resource, as the apiextensions-apiserver's
// objectmeta validation does (metadata itself is left to the caller).
func validateEmbeddedResource(pth *field.Path, x map[string]any) field.ErrorList {
	var errs field.ErrorList
	if _, ok := x["apiVersion"]; !ok {
		errs = append(errs, field.Required(pth.Child("apiVersion"), "must not be empty"))
	}
	if _, ok := x["kind"]; !ok {
		errs = append(errs, field.Required(pth.Child("kind"), "must not be empty"))
	}
	if v, ok := x["apiVersion"]; ok {
		switch av, isStr := v.(string); {
		case !isStr:
			errs = append(errs, field.Invalid(pth.Child("apiVersion"), v, "must be a string"))
		case av == "":
			errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, "must not be empty"))
		case strings.Count(av, "/") > 1:
			errs = append(errs, field.Invalid(pth.Child("apiVersion"), av, fmt.Sprintf("unexpected GroupVersion string: %v", av)))
		}
	}
	if v, ok := x["kind"]; ok {
		switch k, isStr := v.(string); {
		case !isStr:
			errs = append(errs, field.Invalid(pth.Child("kind"), v, "must be a string"))
		case k == "":
			errs = append(errs, field.Invalid(pth.Child("kind"), k, "must not be empty"))
		default:
			if e := isDNS1035Label(strings.ToLower(k)); len(e) > 0 {
				errs = append(errs, field.Invalid(pth.Child("kind"), k, "may have mixed case, but should otherwise match: "+strings.Join(e, ",")))
			}
		}
	}
	if v, ok := x["metadata"]; ok {
		if _, isMap := v.(map[string]any); !isMap && v != nil {
			errs = append(errs, field.Invalid(pth.Child("metadata"), v, "must be an object"))
		}
	}
	return errs
}
