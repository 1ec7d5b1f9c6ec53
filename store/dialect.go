package store

import "fmt"

// The few expressions the two databases spell differently. Everything else the store
// says is the same SQL on both.

// jsonArrayHas is a condition true when the JSON array of strings in column holds the
// one parameter it takes.
func (d Dialect) jsonArrayHas(column string) string {
	if d == Postgres {
		return fmt.Sprintf("EXISTS (SELECT 1 FROM jsonb_array_elements_text(%s::jsonb) AS t(v) WHERE t.v = ?)", column)
	}
	return fmt.Sprintf("EXISTS (SELECT 1 FROM json_each(%s) WHERE json_each.value = ?)", column)
}

// utcDay is the UTC day (2006-01-02) of an epoch-milliseconds column.
func (d Dialect) utcDay(column string) string {
	if d == Postgres {
		return fmt.Sprintf("to_char(to_timestamp(%s / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD')", column)
	}
	return fmt.Sprintf("strftime('%%Y-%%m-%%d', %s / 1000, 'unixepoch')", column)
}
