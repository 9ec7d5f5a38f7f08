package field

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Path is the location of a field inside an object, such as
// spec.containers[0].image. The zero value (nil) is the root.
type Path struct {
	name   string // a field name, or "" when index or key is set
	index  string // "[3]" or "[key]" when this element is a subscript
	parent *Path
}

// NewPath starts a path at the named top-level field, with further names
// appended: NewPath("spec", "template").
func NewPath(name string, more ...string) *Path {
	p := &Path{name: name}
	for _, n := range more {
		p = p.Child(n)
	}
	return p
}

// Child returns the path of a field inside p.
func (p *Path) Child(name string, more ...string) *Path {
	c := &Path{name: name, parent: p}
	for _, n := range more {
		c = c.Child(n)
	}
	return c
}

// Index returns the path of the i-th element of the list at p.
func (p *Path) Index(i int) *Path {
	return &Path{index: "[" + strconv.Itoa(i) + "]", parent: p}
}

// Key returns the path of the map entry k of the map at p.
func (p *Path) Key(k string) *Path {
	return &Path{index: "[" + k + "]", parent: p}
}

// String renders the path as Kubernetes does: names joined by dots,
// subscripts appended without a dot.
func (p *Path) String() string {
	if p == nil {
		return "<nil>"
	}
	var elems []*Path
	for e := p; e != nil; e = e.parent {
		elems = append(elems, e)
	}
	var b strings.Builder
	for i := len(elems) - 1; i >= 0; i-- {
		e := elems[i]
		if e.index != "" {
			b.WriteString(e.index)
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e.name)
	}
	return b.String()
}

// ErrorType is the kind of a field error; its String is the first words of
// the message ("Required value", "Invalid value", ...).
type ErrorType string

// The error types Kubernetes uses, with their wording.
const (
	ErrorTypeNotFound     ErrorType = "FieldValueNotFound"
	ErrorTypeRequired     ErrorType = "FieldValueRequired"
	ErrorTypeDuplicate    ErrorType = "FieldValueDuplicate"
	ErrorTypeInvalid      ErrorType = "FieldValueInvalid"
	ErrorTypeNotSupported ErrorType = "FieldValueNotSupported"
	ErrorTypeForbidden    ErrorType = "FieldValueForbidden"
	ErrorTypeTooLong      ErrorType = "FieldValueTooLong"
	ErrorTypeTooMany      ErrorType = "FieldValueTooMany"
	ErrorTypeInternal     ErrorType = "InternalError"
	ErrorTypeTypeInvalid  ErrorType = "FieldValueTypeInvalid"
)

// String is the human wording of the type, used at the start of a message.
func (t ErrorType) String() string {
	switch t {
	case ErrorTypeNotFound:
		return "Not found"
	case ErrorTypeRequired:
		return "Required value"
	case ErrorTypeDuplicate:
		return "Duplicate value"
	case ErrorTypeInvalid, ErrorTypeTypeInvalid:
		return "Invalid value"
	case ErrorTypeNotSupported:
		return "Unsupported value"
	case ErrorTypeForbidden:
		return "Forbidden"
	case ErrorTypeTooLong:
		return "Too long"
	case ErrorTypeTooMany:
		return "Too many"
	case ErrorTypeInternal:
		return "Internal error"
	}
	return string(t)
}

// omitValue is a BadValue that must not be printed.
type omitValueType struct{}

// OmitValue, as a BadValue, keeps the value out of the message.
var OmitValue = omitValueType{}

// Error is one problem in one field. Type becomes the cause's reason,
// Field its field, and ErrorBody its message.
type Error struct {
	Type     ErrorType
	Field    string
	BadValue any
	Detail   string
}

// Error renders "field: body", the line kubectl prints for a cause.
func (e *Error) Error() string {
	return e.Field + ": " + e.ErrorBody()
}

// ErrorBody is the message without the field, as Kubernetes puts it into
// a StatusCause.
func (e *Error) ErrorBody() string {
	var s string
	switch {
	case e.Type == ErrorTypeRequired, e.Type == ErrorTypeForbidden,
		e.Type == ErrorTypeTooLong, e.Type == ErrorTypeInternal,
		e.BadValue == OmitValue:
		s = e.Type.String()
	default:
		s = e.Type.String() + ": " + FormatValue(e.BadValue)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// FormatValue prints a bad value the way Kubernetes does: strings quoted,
// numbers and booleans bare, null for nil, other values with %#v.
func FormatValue(v any) string {
	if v == nil {
		return "null"
	}
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "null"
		}
		rv = rv.Elem()
		v = rv.Interface()
	}
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, bool:
		return fmt.Sprintf("%v", t)
	case float32:
		return strconv.FormatFloat(float64(t), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case fmt.Stringer:
		return t.String()
	}
	return fmt.Sprintf("%#v", v)
}

// ErrorList is every problem found in one object; validators return all of
// them, never just the first.
type ErrorList []*Error

// Error joins the errors as Kubernetes' aggregate does: one error alone,
// several in brackets separated by ", ".
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return ""
	case 1:
		return l[0].Error()
	}
	msgs := make([]string, 0, len(l))
	seen := map[string]bool{}
	for _, e := range l {
		m := e.Error()
		if seen[m] {
			continue
		}
		seen[m] = true
		msgs = append(msgs, m)
	}
	if len(msgs) == 1 {
		return msgs[0]
	}
	return "[" + strings.Join(msgs, ", ") + "]"
}

func pathString(p *Path) string { return p.String() }

// Required reports a missing value.
func Required(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeRequired, Field: pathString(p), Detail: detail}
}

// Invalid reports a value that breaks a rule; detail says which.
func Invalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeInvalid, Field: pathString(p), BadValue: value, Detail: detail}
}

// TypeInvalid reports a value of the wrong JSON type.
func TypeInvalid(p *Path, value any, detail string) *Error {
	return &Error{Type: ErrorTypeTypeInvalid, Field: pathString(p), BadValue: value, Detail: detail}
}

// NotSupported reports a value outside a fixed set of choices (of any
// string type, as the API's enum types are).
func NotSupported[T ~string](p *Path, value any, valid []T) *Error {
	detail := ""
	if len(valid) > 0 {
		q := make([]string, len(valid))
		for i, v := range valid {
			q[i] = strconv.Quote(string(v))
		}
		detail = "supported values: " + strings.Join(q, ", ")
	}
	return &Error{Type: ErrorTypeNotSupported, Field: pathString(p), BadValue: value, Detail: detail}
}

// Duplicate reports a value that must be unique but is repeated.
func Duplicate(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeDuplicate, Field: pathString(p), BadValue: value}
}

// NotFound reports a reference to something that does not exist.
func NotFound(p *Path, value any) *Error {
	return &Error{Type: ErrorTypeNotFound, Field: pathString(p), BadValue: value}
}

// Forbidden reports a field that may not be set or changed.
func Forbidden(p *Path, detail string) *Error {
	return &Error{Type: ErrorTypeForbidden, Field: pathString(p), Detail: detail}
}

// TooLong reports a string or list longer than maxLength (in bytes).
func TooLong(p *Path, value any, maxLength int) *Error {
	detail := "value is too long"
	if maxLength >= 0 {
		detail = fmt.Sprintf("may not be more than %d bytes", maxLength)
	}
	return &Error{Type: ErrorTypeTooLong, Field: pathString(p), BadValue: value, Detail: detail}
}

// TooMany reports a list with more than maxQuantity items.
func TooMany(p *Path, actual, maxQuantity int) *Error {
	var value any = actual
	if actual < 0 {
		value = OmitValue
	}
	detail := "has too many items"
	if maxQuantity >= 0 {
		detail = fmt.Sprintf("must have at most %d items", maxQuantity)
	}
	return &Error{Type: ErrorTypeTooMany, Field: pathString(p), BadValue: value, Detail: detail}
}

// InternalError reports a failure of the validator itself.
func InternalError(p *Path, err error) *Error {
	return &Error{Type: ErrorTypeInternal, Field: pathString(p), Detail: err.Error()}
}
