package api

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Table is the server-side printing of a list or object (meta.k8s.io/v1
// Table), returned when kubectl asks for as=Table.
type Table = metav1.Table

// TableColumnDefinition describes one column.
type TableColumnDefinition = metav1.TableColumnDefinition

// TableRow is one object's cells.
type TableRow = metav1.TableRow

// TableRowCondition is a condition of a row.
type TableRowCondition = metav1.TableRowCondition
