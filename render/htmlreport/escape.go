package htmlreport

import (
	"fmt"
	"html/template"
	"reflect"
	"text/template/parse"

	"github.com/tallyprof/tally/internal/safetext"
)

// The page shows every name as the text report does: a control character,
// a bidi override or an invalid byte as a visible escape (safetext), not
// acted on, reordered or turned into U+FFFD. The text report gets that by
// printing every string argument through safetext.Fprintf; the page by
// passing every value its template prints through show (escapeActions),
// before html/template escapes the markup. The tables the script draws
// take their names from the page's data, escaped when it is built
// (model.go), so the script only ever sets textContent.

// escapeActions appends show to the pipeline of every action of t that
// prints, so that no value of the page, now or added later, skips it.
func escapeActions(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			escapeNode(tt.Tree.Root)
		}
	}
}

func escapeNode(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			escapeNode(c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 { // {{$x := …}} prints nothing
			return
		}
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos,
			Args: []parse.Node{parse.NewIdentifier("show").SetPos(n.Pos)}})
	case *parse.IfNode:
		escapeNode(n.List)
		escapeNode(n.ElseList)
	case *parse.RangeNode:
		escapeNode(n.List)
		escapeNode(n.ElseList)
	case *parse.WithNode:
		escapeNode(n.List)
		escapeNode(n.ElseList)
	}
}

// show is a printed value as the text report prints it: text escaped
// (safetext.Escape), anything else as it is. The page's own markup,
// style and script (html/template's typed strings) pass unchanged, and
// so does the page's data, a struct the template writes as JSON.
func show(v any) any {
	switch v := v.(type) {
	case template.HTML, template.HTMLAttr, template.CSS, template.JS, template.JSStr, template.URL, template.Srcset:
		return v
	case string:
		return safetext.Escape(v)
	case error:
		return safetext.Escape(v.Error())
	case fmt.Stringer:
		return safetext.Escape(v.String())
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		return safetext.Escape(rv.String())
	}
	return v
}
