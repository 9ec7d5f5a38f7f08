package crd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission/webhook"
	"github.com/kubesim/kubesim/store"
)

// conversionTimeout is how long a conversion webhook may take, as the
// apiextensions-apiserver's webhook client allows.
const conversionTimeout = 30 * time.Second

// converter calls a CRD's conversion webhook (spec.conversion.strategy
// Webhook) with ConversionReview apiextensions.k8s.io/v1, through the same
// clients as the admission webhooks (caBundle, Service dialing).
type converter struct {
	clients *webhook.Clients
	cc      webhook.Endpoint
	group   string
	kind    string
	uid     func() types.UID
}

// gvkString is a kind as kube-apiserver's errors print it
// ("stable.example.com/v1, Kind=CronTab").
func (c *converter) gvkString(apiVersion string) string {
	return apiVersion + ", Kind=" + c.kind
}

// convert returns objs in version desired (a group/version), calling the
// webhook once for those that are in another version; list says they are
// a list's items. Its errors are the apiextensions-apiserver's, as 500
// InternalErrors.
func (c *converter) convert(ctx context.Context, objs [][]byte, desired string, list bool) ([][]byte, error) {
	out := make([][]byte, len(objs))
	var send []int
	from := ""
	for i, o := range objs {
		v := apiVersionOf(o)
		if len(o) == 0 || v == desired {
			out[i] = o
			continue
		}
		if from == "" {
			from = v
		}
		send = append(send, i)
	}
	if len(send) == 0 {
		return out, nil
	}
	fail := func(format string, args ...any) error {
		return api.NewInternalError(fmt.Errorf("conversion webhook for %s "+format, append([]any{c.gvkString(from)}, args...)...))
	}
	uid := c.uid()
	req := &apiextensionsv1.ConversionRequest{UID: uid, DesiredAPIVersion: desired}
	for _, i := range send {
		req.Objects = append(req.Objects, runtime.RawExtension{Raw: objs[i]})
	}
	resp, err := c.call(ctx, req)
	if err != nil {
		return nil, fail("failed: %v", err)
	}
	switch {
	case resp == nil:
		return nil, fail("failed: no response provided")
	case resp.UID != uid:
		return nil, fail("failed: expected response.uid=%q, got %q", uid, resp.UID)
	case resp.Result.Status != metav1.StatusSuccess && resp.Result.Message != "":
		return nil, fail("failed: %s", resp.Result.Message)
	case resp.Result.Status != metav1.StatusSuccess:
		return nil, fail("failed: response.result.status was '%s', not 'Success'", resp.Result.Status)
	case len(resp.ConvertedObjects) != len(send):
		return nil, fail("returned %d objects, expected %d", len(resp.ConvertedObjects), len(send))
	}
	for j, i := range send {
		converted, ce := checkConverted(objs[i], resp.ConvertedObjects[j].Raw, desired)
		if ce != nil {
			// The real converter words a list's objects and a single one
			// differently (and counts a list's from 1 once decoded).
			if list {
				return nil, fail("returned invalid converted object at index %v: %v", j+1, ce.err)
			}
			return nil, fail("returned invalid object%s%v", ce.prefix, ce.err)
		}
		out[i] = converted
	}
	return out, nil
}

// call posts the review and decodes the answer.
func (c *converter) call(ctx context.Context, req *apiextensionsv1.ConversionRequest) (*apiextensionsv1.ConversionResponse, error) {
	url, err := webhook.URL(c.cc, conversionTimeout)
	if err != nil {
		return nil, err
	}
	rt, err := c.clients.Transport(c.cc.CABundle)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(apiextensionsv1.ConversionReview{TypeMeta: metav1.TypeMeta{APIVersion: Group + "/v1", Kind: "ConversionReview"}, Request: req})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, conversionTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json, */*")
	resp, err := (&http.Client{Transport: rt}).Do(hr)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 3*1024*1024))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		// client-go's words for an answer that is not a Status.
		return nil, errors.New(api.UnstructuredResponseMessage(resp, data))
	}
	var review apiextensionsv1.ConversionReview
	if err := json.Unmarshal(data, &review); err != nil {
		return nil, err
	}
	return review.Response, nil
}

// convertedError is what is wrong with a converted object; prefix is
// how a single object's message goes on (" at index 0: " for the type
// checks, ": " for the metadata ones); a list's message has its own.
type convertedError struct {
	prefix string
	err    error
}

// checkConverted checks a converted object as the apiextensions-apiserver
// does (group/version and kind, then name, namespace and uid unchanged)
// and gives it the original's metadata but for its labels and annotations
// (restoreObjectMeta).
func checkConverted(original, converted []byte, desired string) ([]byte, *convertedError) {
	var o, c map[string]any
	if err := json.Unmarshal(original, &o); err != nil {
		return nil, &convertedError{": ", err}
	}
	if err := json.Unmarshal(converted, &c); err != nil {
		return nil, &convertedError{": ", err}
	}
	if got, _ := c["apiVersion"].(string); got != desired {
		return nil, &convertedError{" at index 0: ", fmt.Errorf("invalid groupVersion (expected %v, received %v)", desired, got)}
	}
	if want, got := o["kind"], c["kind"]; want != got {
		return nil, &convertedError{" at index 0: ", fmt.Errorf("invalid kind (expected %v, received %v)", want, got)}
	}
	om, _ := o["metadata"].(map[string]any)
	cm, _ := c["metadata"].(map[string]any)
	for _, f := range []string{"name", "namespace", "uid"} {
		if want, got := om[f], cm[f]; want != got {
			what := map[string]string{"name": "name", "namespace": "namespace", "uid": "UID"}[f]
			return nil, &convertedError{": ", fmt.Errorf("must have the same %s: %v != %v", what, want, got)}
		}
	}
	meta := map[string]any{}
	for k, v := range om {
		meta[k] = v
	}
	for _, k := range []string{"labels", "annotations"} {
		if v, ok := cm[k]; ok && v != nil {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	c["metadata"] = meta
	out, err := json.Marshal(c)
	if err != nil {
		return nil, &convertedError{": ", err}
	}
	return out, nil
}

// apiVersionOf reads the apiVersion of a stored object.
func apiVersionOf(value []byte) string {
	var tm metav1.TypeMeta
	_ = json.Unmarshal(value, &tm)
	return tm.APIVersion
}

// conversionStorage keeps a custom resource's objects in the CRD's storage
// version and serves them in this resource's version, converting through
// the webhook: writes are converted to the storage version, what is read
// (and what a write returns) to the served one.
type conversionStorage struct {
	store.Interface
	conv            *converter
	served, storage string
}

func (s conversionStorage) to(ctx context.Context, value []byte, gv string) ([]byte, error) {
	out, err := s.conv.convert(ctx, [][]byte{value}, gv, false)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

func (s conversionStorage) served1(ctx context.Context, kv store.KeyValue, err error) (store.KeyValue, error) {
	if err != nil || len(kv.Value) == 0 {
		return kv, err
	}
	v, err := s.to(ctx, kv.Value, s.served)
	if err != nil {
		return store.KeyValue{}, err
	}
	kv.Value = v
	return kv, nil
}

// Create implements store.Interface.
func (s conversionStorage) Create(ctx context.Context, key string, value []byte, opts store.CreateOptions) (store.KeyValue, error) {
	v, err := s.to(ctx, value, s.storage)
	if err != nil {
		return store.KeyValue{}, err
	}
	kv, err := s.Interface.Create(ctx, key, v, opts)
	return s.served1(ctx, kv, err)
}

// Update implements store.Interface.
func (s conversionStorage) Update(ctx context.Context, key string, value []byte, pre store.Preconditions) (store.KeyValue, error) {
	v, err := s.to(ctx, value, s.storage)
	if err != nil {
		return store.KeyValue{}, err
	}
	kv, err := s.Interface.Update(ctx, key, v, pre)
	return s.served1(ctx, kv, err)
}

// Get implements store.Interface.
func (s conversionStorage) Get(ctx context.Context, key string) (store.KeyValue, error) {
	kv, err := s.Interface.Get(ctx, key)
	return s.served1(ctx, kv, err)
}

// Delete implements store.Interface. The deleted object is returned as
// it was stored if the webhook cannot convert it: the delete happened.
func (s conversionStorage) Delete(ctx context.Context, key string, pre store.Preconditions) (store.KeyValue, error) {
	kv, err := s.Interface.Delete(ctx, key, pre)
	if out, cerr := s.served1(ctx, kv, err); cerr == nil {
		return out, nil
	}
	return kv, err
}

// List implements store.Interface: one review for the whole page.
func (s conversionStorage) List(ctx context.Context, prefix string, opts store.ListOptions) (store.ListResult, error) {
	res, err := s.Interface.List(ctx, prefix, opts)
	if err != nil || len(res.Items) == 0 {
		return res, err
	}
	values := make([][]byte, len(res.Items))
	for i, kv := range res.Items {
		values[i] = kv.Value
	}
	converted, err := s.conv.convert(ctx, values, s.served, true)
	if err != nil {
		return store.ListResult{}, err
	}
	items := make([]store.KeyValue, len(res.Items))
	for i, kv := range res.Items {
		kv.Value = converted[i]
		items[i] = kv
	}
	res.Items = items
	return res, nil
}

// Watch implements store.Interface. An event the webhook cannot convert
// is passed on as stored (kube-apiserver sends an error event instead).
func (s conversionStorage) Watch(ctx context.Context, prefix string, from int64) (store.Watcher, error) {
	w, err := s.Interface.Watch(ctx, prefix, from)
	if err != nil {
		return nil, err
	}
	return newConvertingWatcher(ctx, w, func(ctx context.Context, v []byte) []byte {
		if len(v) == 0 {
			return v
		}
		out, err := s.to(ctx, v, s.served)
		if err != nil {
			return v
		}
		return out
	}), nil
}
