package api

import "encoding/json"

// Table is the server-side printing of a list or object (meta.k8s.io/v1
// Table), returned when kubectl asks for as=Table.
type Table struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty"`
	// ColumnDefinitions describe the columns, in order.
	ColumnDefinitions []TableColumnDefinition `json:"columnDefinitions"`
	// Rows hold one object each.
	Rows []TableRow `json:"rows"`
}

// TableColumnDefinition describes one column.
type TableColumnDefinition struct {
	// Name is the header, such as NAME.
	Name string `json:"name"`
	// Type is an OpenAPI type: string, integer, number, boolean, date.
	Type string `json:"type"`
	// Format is an OpenAPI format, such as name.
	Format string `json:"format"`
	// Description explains the column.
	Description string `json:"description"`
	// Priority 0 columns are always shown; higher ones with -o wide.
	Priority int32 `json:"priority"`
}

// TableRow is one object's cells.
type TableRow struct {
	// Cells are JSON values, one per column.
	Cells []any `json:"cells"`
	// Conditions of the row, such as Completed.
	Conditions []TableRowCondition `json:"conditions,omitempty"`
	// Object is the object or its PartialObjectMetadata, as JSON.
	Object json.RawMessage `json:"object,omitempty"`
}

// TableRowCondition is a condition of a row.
type TableRowCondition struct {
	// Type is the condition type.
	Type string `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// Reason is a CamelCase word.
	Reason string `json:"reason,omitempty"`
	// Message is for humans.
	Message string `json:"message,omitempty"`
}
