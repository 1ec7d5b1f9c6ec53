package handlers

import (
	"bufio"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
)

// csvFlushEvery is how many rows go out between flushes: the browser's download starts
// at once and the console never holds the whole file.
const csvFlushEvery = 200

// csvExport is the one writer of every CSV export. Each cell is defused on the way out,
// so no export can be opened in a spreadsheet that then runs a value that came from a
// message, a form or the audit log as a formula.
type csvExport struct {
	bw   *bufio.Writer
	w    *csv.Writer
	out  http.Flusher
	rows int
}

// newCSVExport writes CSV to w, flushing it every csvFlushEvery rows.
func newCSVExport(w http.ResponseWriter) *csvExport {
	bw := bufio.NewWriterSize(w, 64<<10)
	e := &csvExport{bw: bw, w: csv.NewWriter(bw)}
	e.out, _ = w.(http.Flusher)
	return e
}

// Row writes one row, every cell defused.
func (e *csvExport) Row(cells ...string) {
	for i, s := range cells {
		cells[i] = defuseCell(s)
	}
	_ = e.w.Write(cells)
	if e.rows++; e.rows%csvFlushEvery == 0 {
		e.Flush()
	}
}

// Flush sends what is buffered to the client.
func (e *csvExport) Flush() {
	e.w.Flush()
	_ = e.bw.Flush()
	if e.out != nil {
		e.out.Flush()
	}
}

// defuseCell keeps a spreadsheet from reading a cell as a formula (OWASP's CSV injection
// advice): a cell starting with = + - @ or a tab or carriage return gets a leading
// apostrophe. Plain numbers ("-5") are left alone: no spreadsheet runs them.
func defuseCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}
