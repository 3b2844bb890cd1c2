// Package interrupt carries the engine's first Cancel (the user's first Ctrl-C) down
// to the code that sends requests and waits.
//
// The engine cancels in two steps. On the first interrupt it stops starting steps,
// calls the provider's Cancel, and waits for the steps in flight, recording their
// results. On the second (or when it closes the provider) it calls Cancel again and
// kills the provider at once. So after the first Cancel nothing new starts
// ([NotStarted]), requests already sent finish within their own deadline (the
// requestTimeout setting), and waits that are not requests end at once ([Waiting]);
// the second Cancel ends everything.
package interrupt
