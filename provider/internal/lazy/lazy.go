package lazy

import "sync"

// Value is a value built from a configuration of type K on first use (see the package
// documentation). Its zero value holds nothing; it is safe for concurrent use, and a
// build runs under its lock, so concurrent first calls build once.
type Value[K comparable, T any] struct {
	mu    sync.Mutex
	key   K
	value T
	built bool
}

// Get returns the value built for key, building it with build when nothing is built
// for key yet. A failed build is not kept: the error is returned, and the next Get
// builds again. retire, when not nil, is given the value a build for a new key
// replaces (to close its idle connections, say).
func (v *Value[K, T]) Get(key K, build func() (T, error), retire func(T)) (T, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.built && v.key == key {
		return v.value, nil
	}
	value, err := build()
	if err != nil {
		var zero T
		return zero, err
	}
	if v.built && retire != nil {
		retire(v.value)
	}
	v.key, v.value, v.built = key, value, true
	return value, nil
}
