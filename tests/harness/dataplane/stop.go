package dataplane

import "fmt"

// Stop stops the backend, as a server shuts down: from then on a connection to any
// of its ports is refused (its address stays until the test ends).
func (b *Backend) Stop() error {
	if err := b.srv.Close(); err != nil {
		return fmt.Errorf("stop the backend %s: %w", b.IP, err)
	}
	return nil
}
