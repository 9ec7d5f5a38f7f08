package handlers

import (
	"encoding/json"

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
func (c *requestContext) table(objs []api.Object, rv, cont string) (*api.Table, error) {
	printer := tableOf(c.res)
	t := &api.Table{
		TypeMeta:          api.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ListMeta:          api.ListMeta{ResourceVersion: rv, Continue: cont},
		ColumnDefinitions: printer.Columns,
		Rows:              []api.TableRow{},
	}
	include := c.r.URL.Query().Get("includeObject")
	for _, obj := range objs {
		row := api.TableRow{Cells: printer.Cells(obj, c.now())}
		var embed any
		switch include {
		case "None":
			t.Rows = append(t.Rows, row)
			continue
		case "Object":
			embed = obj
		default:
			embed = &api.PartialObjectMetadata{
				TypeMeta:   api.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
				ObjectMeta: *obj.GetObjectMeta(),
			}
		}
		raw, err := json.Marshal(embed)
		if err != nil {
			return nil, api.NewInternalError(err)
		}
		row.Object = raw
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
