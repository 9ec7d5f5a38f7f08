package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// tablePages follows a Table list's continue tokens and returns each
// page's body.
func (e *testEnv) tablePages(path string) [][]byte {
	var pages [][]byte
	cont := ""
	for {
		p := path
		if cont != "" {
			p += "&continue=" + url.QueryEscape(cont)
		}
		r := e.doH("GET", p, "", "", map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}).expect(200)
		pages = append(pages, r.body)
		var t metav1.Table
		require.NoError(e.t, json.Unmarshal(r.body, &t))
		if cont = t.Continue; cont == "" {
			return pages
		}
	}
}

// A Table list is the same bytes whether its objects were decoded (the
// first list, before the watch cache holds them) or taken from the cache,
// and those bytes are json.Marshal's of the Table (what the handler
// answered before it encoded Tables in one pass): HTML-escaped
// annotations, embedded whole objects, custom resources included. Listing
// leaves the cached objects as they were.
func TestTableListFromCacheIsByteForByte(t *testing.T) {
	e := newEnv(t)
	for i := range 7 {
		app := []string{"web", "db"}[i%2]
		e.do("POST", "/api/v1/namespaces/default/configmaps", "", fmt.Sprintf(
			`{"metadata":{"name":"c%d","labels":{"app":%q},"annotations":{"note":"<b>a & b</b> é \u2028"}},"data":{"k":"%d"}}`, i, app, i)).expect(201)
	}
	for i := range 3 {
		e.do("POST", "/apis/lab.example.com/v1/namespaces/default/widgets", "", fmt.Sprintf(
			`{"apiVersion":"lab.example.com/v1","kind":"Widget","metadata":{"name":"w%d"},"spec":{"size":%d,"replicas":1}}`, i, i+1)).expect(201)
	}
	e.do("PUT", "/api/v1/namespaces/default/configmaps/c3", "", `{"metadata":{"name":"c3","labels":{"app":"web"}},"data":{"k":"changed"}}`).expect(200)
	paths := []string{
		"/api/v1/namespaces/default/configmaps?limit=3",
		"/api/v1/configmaps?limit=2&labelSelector=app%3Dweb",
		"/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dc3",
		"/api/v1/namespaces/default/configmaps?limit=4&includeObject=Object",
		"/api/v1/namespaces/default/configmaps?includeObject=None",
		"/apis/lab.example.com/v1/namespaces/default/widgets?limit=2",
		"/apis/lab.example.com/v1/widgets?includeObject=Object",
	}
	for _, path := range paths {
		cold := e.tablePages(path)
		warm := e.tablePages(path)
		require.Equal(t, len(cold), len(warm), path)
		for i := range cold {
			assert.Equal(t, string(cold[i]), string(warm[i]), "%s, page %d: decoded and cached answers differ", path, i)
			var tbl metav1.Table
			require.NoError(t, json.Unmarshal(warm[i], &tbl))
			want, err := json.Marshal(&tbl)
			require.NoError(t, err)
			assert.Equal(t, string(want)+"\n", string(warm[i]), "%s, page %d: not json.Marshal's bytes", path, i)
		}
		assert.Contains(t, string(cold[0]), `"rows":[`)
	}
	s, ok := e.h.Lookup("", "v1", "configmaps")
	require.True(t, ok)
	cached, err := s.ListCached(context.Background(), "", registry.ListOptions{})
	require.NoError(t, err)
	decoded, err := s.List(context.Background(), "", registry.ListOptions{})
	require.NoError(t, err)
	require.Len(t, cached.Items, 7)
	for i := range decoded.Items {
		want, _ := json.Marshal(decoded.Items[i])
		got, _ := json.Marshal(cached.Items[i])
		assert.Equal(t, string(want), string(got), "the Table printer changed a cached object")
	}
}

// encodeTable writes json.Marshal's bytes for every shape of row.
func TestEncodeTableIsJSONMarshal(t *testing.T) {
	for _, tbl := range []*metav1.Table{
		{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, Rows: []metav1.TableRow{}},
		{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}},
		{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}, ListMeta: metav1.ListMeta{ResourceVersion: "7", Continue: "abc"},
			ColumnDefinitions: []metav1.TableColumnDefinition{{Name: "Name", Type: "string", Format: "name", Description: "<the name>"}},
			Rows: []metav1.TableRow{
				{Cells: []any{"a<b", int64(3), 1.5, true, nil}, Object: runtime.RawExtension{Raw: []byte(`{"kind":"X","metadata":{"name":"\u003ca\u003e"}}`)}},
				{Cells: nil},
				{Cells: []any{"c"}, Conditions: []metav1.TableRowCondition{{Type: "Completed", Status: "True"}}},
			}},
	} {
		want, err := json.Marshal(tbl)
		require.NoError(t, err)
		got, err := encodeTable(tbl)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got))
	}
}
