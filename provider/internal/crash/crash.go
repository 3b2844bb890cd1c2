package crash

import (
	"fmt"
	"runtime/debug"
)

// Panic is a recovered panic: the value panic was given and the stack of the
// goroutine that panicked.
type Panic struct {
	Value any
	Stack []byte
}

// String is the panic's value as the runtime prints it.
func (p *Panic) String() string { return fmt.Sprint(p.Value) }

// Catch runs f and returns its panic, if any (nil when f returns). A *Panic that f
// panics with (one carried from a goroutine of its own) is returned as it is, with
// the stack where it began.
func Catch(f func()) (p *Panic) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		if carried, ok := v.(*Panic); ok {
			p = carried
			return
		}
		p = &Panic{Value: v, Stack: debug.Stack()}
	}()
	f()
	return nil
}
