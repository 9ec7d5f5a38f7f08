package crd

import (
	"context"
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"

	"github.com/kubesim/kubesim/store"
)

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func toStored(value []byte) ([]byte, error) {
	var b apiextensionsv1beta1.CustomResourceDefinition
	if err := json.Unmarshal(value, &b); err != nil {
		return nil, err
	}
	return json.Marshal(ToV1(&b))
}

func fromStored(value []byte) []byte {
	if value == nil {
		return nil
	}
	var c apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(value, &c); err != nil {
		// Not a CRD: leave it for the registry to report.
		return value
	}
	out, err := json.Marshal(ToV1beta1(&c))
	if err != nil {
		return value
	}
	return out
}

// newConvertingWatcher converts a watch's values (custom resources to the
// served version).
func newConvertingWatcher(ctx context.Context, w store.Watcher, convert func(context.Context, []byte) []byte) store.Watcher {
	return store.NewConvertingWatcher(ctx, w, convert)
}
