package patch

// testSchema is a literal Schema for tests. Its methods return an untyped
// nil for "unknown", which is what the Schema contract asks of implementers.
type testSchema struct {
	fields   map[string]*testSchema
	elem     *testSchema
	strategy string
	mergeKey string
	listType string
	mapKeys  []string
}

func (s *testSchema) Field(name string) Schema {
	if s == nil || s.fields[name] == nil {
		return nil
	}
	return s.fields[name]
}

func (s *testSchema) Elem() Schema {
	if s == nil || s.elem == nil {
		return nil
	}
	return s.elem
}

func (s *testSchema) PatchStrategy() (string, string) { return s.strategy, s.mergeKey }

func (s *testSchema) ListType() (string, []string) { return s.listType, s.mapKeys }

func obj(fields map[string]*testSchema) *testSchema { return &testSchema{fields: fields} }

// mapList is a list merged by key, both for strategic merge (the first key)
// and server-side apply.
func mapList(elem *testSchema, keys ...string) *testSchema {
	return &testSchema{elem: elem, strategy: "merge", mergeKey: keys[0], listType: "map", mapKeys: keys}
}

var (
	stringMap  = &testSchema{elem: &testSchema{}}
	atomicList = &testSchema{elem: &testSchema{}, listType: "atomic"}
	setList    = &testSchema{elem: &testSchema{}, strategy: "merge", listType: "set"}

	metadataSchema = obj(map[string]*testSchema{
		"labels":      stringMap,
		"annotations": stringMap,
		"finalizers":  setList,
		"ownerReferences": mapList(obj(map[string]*testSchema{
			"uid": {}, "name": {},
		}), "uid"),
	})

	containerSchema = obj(map[string]*testSchema{
		"name": {}, "image": {},
		"args":    atomicList,
		"command": atomicList,
		"ports": mapList(obj(map[string]*testSchema{
			"containerPort": {}, "protocol": {}, "name": {},
		}), "containerPort", "protocol"),
		"env": mapList(obj(map[string]*testSchema{
			"name": {}, "value": {},
		}), "name"),
		"volumeMounts": mapList(obj(map[string]*testSchema{
			"name": {}, "mountPath": {},
		}), "mountPath"),
		"resources": obj(map[string]*testSchema{"limits": stringMap, "requests": stringMap}),
	})

	podSpecSchema = obj(map[string]*testSchema{
		"containers":     mapList(containerSchema, "name"),
		"initContainers": mapList(containerSchema, "name"),
		"volumes": {
			elem: obj(map[string]*testSchema{
				"name": {}, "emptyDir": obj(nil), "hostPath": obj(map[string]*testSchema{"path": {}}),
			}),
			strategy: "merge,retainKeys", mergeKey: "name", listType: "map", mapKeys: []string{"name"},
		},
		"tolerations":  atomicList,
		"nodeSelector": stringMap,
	})

	deploymentSchema = obj(map[string]*testSchema{
		"apiVersion": {}, "kind": {},
		"metadata": metadataSchema,
		"spec": obj(map[string]*testSchema{
			"replicas": {},
			"selector": obj(map[string]*testSchema{"matchLabels": stringMap}),
			"strategy": {
				fields: map[string]*testSchema{
					"type": {}, "rollingUpdate": obj(map[string]*testSchema{"maxSurge": {}, "maxUnavailable": {}}),
				},
				strategy: "retainKeys",
			},
			"template": obj(map[string]*testSchema{
				"metadata": metadataSchema,
				"spec":     podSpecSchema,
			}),
		}),
		"status": obj(map[string]*testSchema{
			"replicas": {},
			"conditions": mapList(obj(map[string]*testSchema{
				"type": {}, "status": {},
			}), "type"),
		}),
	})
)

// typedNilSchema returns typed nil pointers for unknown fields, which the
// package must treat like a nil Schema.
type typedNilSchema struct{ containers bool }

func (s *typedNilSchema) Field(name string) Schema {
	if name == "containers" {
		return &typedNilSchema{containers: true}
	}
	var none *typedNilSchema
	return none
}
func (s *typedNilSchema) Elem() Schema {
	var none *typedNilSchema
	return none
}
func (s *typedNilSchema) PatchStrategy() (string, string) {
	if s.containers {
		return "merge", "name"
	}
	return "", ""
}
func (s *typedNilSchema) ListType() (string, []string) { return "", nil }
