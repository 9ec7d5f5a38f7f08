package field

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPathString(t *testing.T) {
	p := NewPath("spec", "containers").Index(0).Child("ports").Index(2).Child("containerPort")
	assert.Equal(t, "spec.containers[0].ports[2].containerPort", p.String())
	assert.Equal(t, "metadata.labels[app]", NewPath("metadata", "labels").Key("app").String())
}

func TestMessagesMatchKubernetes(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{Invalid(NewPath("spec", "userID"), int64(999999), "spec.userID in body should be less than or equal to 65535"),
			"spec.userID: Invalid value: 999999: spec.userID in body should be less than or equal to 65535"},
		{Required(NewPath("spec", "groups"), ""), "spec.groups: Required value"},
		{NotSupported(NewPath("spec", "color"), "purple", []string{"red", "green", "blue"}),
			`spec.color: Unsupported value: "purple": supported values: "red", "green", "blue"`},
		{TooLong(NewPath("spec", "name"), "abcdefghij", 8), "spec.name: Too long: may not be more than 8 bytes"},
		{TooMany(NewPath("spec", "tags"), 4, 3), "spec.tags: Too many: 4: must have at most 3 items"},
		{TypeInvalid(NewPath("spec", "userID"), "string", `spec.userID in body must be of type integer: "string"`),
			`spec.userID: Invalid value: "string": spec.userID in body must be of type integer: "string"`},
		{Invalid(NewPath("x"), nil, "must not be null"), "x: Invalid value: null: must not be null"},
		{Invalid(NewPath("x"), 1.5, ""), "x: Invalid value: 1.5"},
		{Invalid(NewPath("x"), float64(1000000), ""), "x: Invalid value: 1e+06"},
		{Forbidden(NewPath("spec"), "pod updates may not change fields other than `spec.containers[*].image`"),
			"spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`"},
		{Duplicate(NewPath("spec", "ports").Index(1), int32(80)), "spec.ports[1]: Duplicate value: 80"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, c.err.Error())
	}
}

func TestErrorListAggregates(t *testing.T) {
	var l ErrorList
	assert.Equal(t, "", l.Error())
	l = append(l, Required(NewPath("a"), ""))
	assert.Equal(t, "a: Required value", l.Error())
	l = append(l, Required(NewPath("b"), ""), Required(NewPath("a"), ""))
	assert.Equal(t, "[a: Required value, b: Required value]", l.Error())
}
