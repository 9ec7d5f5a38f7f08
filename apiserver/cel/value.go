package cel

import (
	"encoding/json"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// adapter turns decoded JSON (maps, lists, json.Number, int64, float64,
// strings, booleans, nil) into CEL values lazily: a map or list is wrapped,
// not copied, and its elements are converted when an expression reads them.
type adapter struct{}

// NativeToValue implements types.Adapter.
func (a adapter) NativeToValue(v any) ref.Val {
	switch t := v.(type) {
	case nil:
		return types.NullValue
	case map[string]any:
		return types.NewStringInterfaceMap(a, t)
	case []any:
		return types.NewDynamicList(a, t)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return types.Int(i)
		}
		if f, err := t.Float64(); err == nil {
			return types.Double(f)
		}
		return types.String(t.String())
	case int:
		return types.Int(t)
	case int32:
		return types.Int(t)
	case float32:
		return types.Double(t)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// ToVal converts a decoded JSON value to a CEL value.
func ToVal(v any) ref.Val { return adapter{}.NativeToValue(v) }
