package admin

import "strings"

// amountOf is the number of a figure "0.05789510 SOL" (the whole figure
// when it has no unit).
func amountOf(figure string) string {
	n, _, _ := strings.Cut(figure, " ")
	return n
}

// unitOf is the unit of a figure ("SOL"), "" for a bare number.
func unitOf(figure string) string {
	_, u, _ := strings.Cut(figure, " ")
	return u
}
