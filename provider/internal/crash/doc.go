// Package crash carries a panic out of a goroutine that serves part of a call (a
// list's items side by side, a lookup's attempt) to the call's own goroutine, where
// the plugin's gRPC server recovers it and answers the call with an error. A panic
// left in such a goroutine would end the plugin: recover works only in the goroutine
// that panicked.
package crash
