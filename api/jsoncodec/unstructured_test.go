package jsoncodec_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubesim/kubesim/api/jsoncodec"
	"github.com/kubesim/kubesim/api/unstructured"
)

// A custom resource is written by Unstructured's MarshalJSONTo under
// jsoncodec and by its MarshalJSON under encoding/json: the bytes must be
// the same, and reading them back must give the same object either way.
func TestUnstructuredSameAsEncodingJSON(t *testing.T) {
	docs := []string{
		`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","namespace":"default","uid":"u","resourceVersion":"12","creationTimestamp":"2026-01-02T03:04:05Z","generation":3,"labels":{"app":"<cron>"},"annotations":{"x":"a&b"},"finalizers":["f"],"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"p","uid":"q","controller":true}]},"spec":{"cronSpec":"* * * * */5","replicas":3,"ratio":0.25,"whole":1.0,"exp":1e21,"tiny":1e-7,"big":123456789012345678901234567890,"neg":-0,"on":true,"off":false,"none":null,"list":[1,"two",[3],{"four":4}],"empty":{},"nothing":[],"html":"<a href='x'>&</a>","unicode":"é€\u2028😀","escaped":"\u0041\n\t\\"},"status":{"z":1,"a":2,"é":3,"A":4}}`,
		`{"apiVersion":"v1","kind":"X","metadata":{}}`,
		`{"kind":"X","metadata":null,"data":"d"}`,
		`{"metadata":{"name":"only"}}`,
		`{}`,
	}
	for i := 0; i < 20; i++ {
		docs = append(docs, fmt.Sprintf(`{"apiVersion":"g/v%d","kind":"K","metadata":{"name":"n%d","labels":{"k%d":"v"}},"spec":{"n":%d,"f":%d.5,"s":"%s","deep":{"a":[{"b":[%d,{"c":null}]}]}}}`,
			i, i, i, i*7919, i, string(rune(0x20+i*37)), -i))
	}
	for _, doc := range docs {
		var u unstructured.Unstructured
		require.NoError(t, json.Unmarshal([]byte(doc), &u), doc)
		want, err := json.Marshal(&u)
		require.NoError(t, err, doc)
		got, err := jsoncodec.Marshal(&u)
		require.NoError(t, err, doc)
		require.Equal(t, string(want), string(got), doc)

		var fromStd, fromCodec unstructured.Unstructured
		require.NoError(t, json.Unmarshal(want, &fromStd), doc)
		require.NoError(t, jsoncodec.Unmarshal(want, &fromCodec), doc)
		assert.Equal(t, fromStd, fromCodec, doc)
	}
	// Invalid UTF-8 in the content: encoding/json's escapes, not v2's.
	u := unstructured.Unstructured{Content: map[string]any{"s": "a\xffb<"}}
	want, _ := json.Marshal(&u)
	got, err := jsoncodec.Marshal(&u)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got))
	// What is not an object is refused by both.
	for _, doc := range []string{`[]`, `"x"`, `{"kind":3}`, `{"metadata":"m"}`, `{"apiVersion":{}}`} {
		var a, b unstructured.Unstructured
		errStd, errCodec := json.Unmarshal([]byte(doc), &a), jsoncodec.Unmarshal([]byte(doc), &b)
		assert.Error(t, errStd, doc)
		assert.Error(t, errCodec, doc)
	}
}
