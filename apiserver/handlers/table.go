package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/registry"
)

func tableOf(res *registry.Resource) *registry.Table {
	if res.Table == nil {
		return registry.DefaultTable
	}
	return res.Table
}

// table renders objs as a meta.k8s.io/v1 Table. Each row carries the
// object's metadata (PartialObjectMetadata) unless includeObject says
// otherwise; kubectl needs it for -A and --show-labels.
func (c *requestContext) table(objs []api.Object, rv, cont string) (*metav1.Table, error) {
	printer := tableOf(c.res)
	t := &metav1.Table{
		TypeMeta:          metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta:          metav1.ListMeta{ResourceVersion: rv, Continue: cont},
		ColumnDefinitions: printer.Columns,
		Rows:              []metav1.TableRow{},
	}
	include := c.r.URL.Query().Get("includeObject")
	for _, obj := range objs {
		row := metav1.TableRow{Cells: printer.Cells(obj, c.now())}
		var embed any
		switch include {
		case "None":
			t.Rows = append(t.Rows, row)
			continue
		case "Object":
			embed = obj
		default:
			embed = &metav1.PartialObjectMetadata{
				TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: *api.Meta(obj),
			}
		}
		raw, err := json.Marshal(embed)
		if err != nil {
			return nil, api.NewInternalError(err)
		}
		row.Object = runtime.RawExtension{Raw: raw}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// writeTable answers a list as a Table: the page's objects come from the
// watch cache (registry.ListCached), and the Table is encoded in one pass,
// each row's cells and object once. json.Marshal of the whole Table would
// encode the rows' objects (json.RawMessage) a second time to check and
// compact them; encodeTable gives the same bytes without it.
func (c *requestContext) writeTable(res *registry.ListResult) error {
	table, err := c.table(res.Items, res.ResourceVersion, res.Continue)
	if err != nil {
		return err
	}
	data, err := encodeTable(table)
	if err != nil {
		return api.NewInternalError(err)
	}
	addWarnings(c.w, res.Warnings)
	c.w.Header().Set("Content-Type", "application/json")
	c.w.WriteHeader(http.StatusOK)
	_, _ = c.w.Write(append(data, '\n'))
	return nil
}

// encodeTable is json.Marshal(t), byte for byte, without re-encoding the
// rows' objects: they are json.Marshal's own output already (compact,
// HTML-escaped), which is what Marshal would make of them again.
func encodeTable(t *metav1.Table) ([]byte, error) {
	head := *t
	head.Rows = nil
	data, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	const tail = `"rows":null}`
	if !bytes.HasSuffix(data, []byte(tail)) {
		return json.Marshal(t)
	}
	buf := bytes.NewBuffer(make([]byte, 0, len(data)+len(t.Rows)*1024))
	buf.Write(data[:len(data)-len(tail)])
	if t.Rows == nil {
		buf.WriteString(tail)
		return buf.Bytes(), nil
	}
	buf.WriteString(`"rows":[`)
	for i, row := range t.Rows {
		if i > 0 {
			buf.WriteByte(',')
		}
		if len(row.Conditions) > 0 {
			raw, err := json.Marshal(row)
			if err != nil {
				return nil, err
			}
			buf.Write(raw)
			continue
		}
		cells, err := json.Marshal(row.Cells)
		if err != nil {
			return nil, err
		}
		buf.WriteString(`{"cells":`)
		buf.Write(cells)
		// metav1.TableRow's object is a RawExtension held by value: the
		// JSON encoder writes it always, null when there is none.
		buf.WriteString(`,"object":`)
		if len(row.Object.Raw) > 0 {
			buf.Write(row.Object.Raw)
		} else {
			buf.WriteString("null")
		}
		buf.WriteByte('}')
	}
	buf.WriteString("]}")
	return buf.Bytes(), nil
}
