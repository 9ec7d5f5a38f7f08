package cel

import (
	"fmt"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityType is the CEL type of resource quantities ("100m", "1Gi"), as
// Kubernetes' quantity library names it. An immutable descriptor.
var quantityType = cel.OpaqueType("kubernetes.Quantity")

// quantityVal is a resource.Quantity as a CEL value.
type quantityVal struct{ q resource.Quantity }

func (v quantityVal) ConvertToNative(t reflect.Type) (any, error) {
	if t == reflect.TypeOf(resource.Quantity{}) {
		return v.q, nil
	}
	return nil, fmt.Errorf("type conversion error from 'Quantity' to '%v'", t)
}

func (v quantityVal) ConvertToType(t ref.Type) ref.Val {
	switch t {
	case quantityType:
		return v
	case types.TypeType:
		return quantityType
	}
	return types.NewErr("type conversion error from '%s' to '%s'", quantityType, t)
}

func (v quantityVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(quantityVal)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(v.q.Equal(o.q))
}

func (v quantityVal) Type() ref.Type { return quantityType }
func (v quantityVal) Value() any     { return v.q }

// quantityLibrary is Kubernetes' quantity library: quantity(string),
// isQuantity(string), and on a quantity sign, isInteger, asInteger,
// asApproximateFloat, add, sub, isLessThan, isGreaterThan, compareTo.
func quantityLibrary() cel.EnvOption {
	q := func(v ref.Val) (resource.Quantity, bool) {
		qv, ok := v.(quantityVal)
		return qv.q, ok
	}
	unary := func(f func(resource.Quantity) ref.Val) cel.OverloadOpt {
		return cel.UnaryBinding(func(v ref.Val) ref.Val {
			x, ok := q(v)
			if !ok {
				return types.MaybeNoSuchOverloadErr(v)
			}
			return f(x)
		})
	}
	binary := func(f func(a, b resource.Quantity) ref.Val) cel.OverloadOpt {
		return cel.BinaryBinding(func(l, r ref.Val) ref.Val {
			a, ok1 := q(l)
			var b resource.Quantity
			ok2 := true
			switch rv := r.(type) {
			case quantityVal:
				b = rv.q
			case types.Int:
				b = *resource.NewQuantity(int64(rv), resource.DecimalSI)
			default:
				ok2 = false
			}
			if !ok1 || !ok2 {
				return types.MaybeNoSuchOverloadErr(r)
			}
			return f(a, b)
		})
	}
	qt, st := quantityType, cel.StringType
	return cel.Lib(quantityLib{opts: []cel.EnvOption{
		cel.Function("quantity", cel.Overload("string_to_quantity", []*cel.Type{st}, qt,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				parsed, err := resource.ParseQuantity(string(v.(types.String)))
				if err != nil {
					return types.WrapErr(err)
				}
				return quantityVal{parsed}
			}))),
		cel.Function("isQuantity", cel.Overload("is_quantity_string", []*cel.Type{st}, cel.BoolType,
			cel.UnaryBinding(func(v ref.Val) ref.Val {
				_, err := resource.ParseQuantity(string(v.(types.String)))
				return types.Bool(err == nil)
			}))),
		cel.Function("sign", cel.MemberOverload("quantity_sign", []*cel.Type{qt}, cel.IntType,
			unary(func(x resource.Quantity) ref.Val { return types.Int(x.Sign()) }))),
		cel.Function("isInteger", cel.MemberOverload("quantity_is_integer", []*cel.Type{qt}, cel.BoolType,
			unary(func(x resource.Quantity) ref.Val { _, ok := x.AsInt64(); return types.Bool(ok) }))),
		cel.Function("asInteger", cel.MemberOverload("quantity_as_integer", []*cel.Type{qt}, cel.IntType,
			unary(func(x resource.Quantity) ref.Val {
				if i, ok := x.AsInt64(); ok {
					return types.Int(i)
				}
				return types.NewErr("cannot convert value to integer")
			}))),
		cel.Function("asApproximateFloat", cel.MemberOverload("quantity_get_float", []*cel.Type{qt}, cel.DoubleType,
			unary(func(x resource.Quantity) ref.Val { return types.Double(x.AsApproximateFloat64()) }))),
		cel.Function("add",
			cel.MemberOverload("quantity_add", []*cel.Type{qt, qt}, qt, binary(func(a, b resource.Quantity) ref.Val { a.Add(b); return quantityVal{a} })),
			cel.MemberOverload("quantity_add_int", []*cel.Type{qt, cel.IntType}, qt, binary(func(a, b resource.Quantity) ref.Val { a.Add(b); return quantityVal{a} }))),
		cel.Function("sub",
			cel.MemberOverload("quantity_sub", []*cel.Type{qt, qt}, qt, binary(func(a, b resource.Quantity) ref.Val { a.Sub(b); return quantityVal{a} })),
			cel.MemberOverload("quantity_sub_int", []*cel.Type{qt, cel.IntType}, qt, binary(func(a, b resource.Quantity) ref.Val { a.Sub(b); return quantityVal{a} }))),
		cel.Function("isLessThan", cel.MemberOverload("quantity_less", []*cel.Type{qt, qt}, cel.BoolType,
			binary(func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) < 0) }))),
		cel.Function("isGreaterThan", cel.MemberOverload("quantity_greater", []*cel.Type{qt, qt}, cel.BoolType,
			binary(func(a, b resource.Quantity) ref.Val { return types.Bool(a.Cmp(b) > 0) }))),
		cel.Function("compareTo", cel.MemberOverload("quantity_compare", []*cel.Type{qt, qt}, cel.IntType,
			binary(func(a, b resource.Quantity) ref.Val { return types.Int(a.Cmp(b)) }))),
	}})
}

// quantityLib bundles the declarations as one cel.Library.
type quantityLib struct{ opts []cel.EnvOption }

func (l quantityLib) CompileOptions() []cel.EnvOption   { return l.opts }
func (quantityLib) ProgramOptions() []cel.ProgramOption { return nil }
