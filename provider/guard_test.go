package provider

import (
	"context"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"

	p "github.com/pulumi/pulumi-go-provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
	"github.com/endpoints-provider/pulumi-endpoints/provider/kube"
	"github.com/endpoints-provider/pulumi-endpoints/provider/spec"
)

// panicking is a gRPC server whose every method panics: the embedded interface is nil.
type panicking struct{ rpc.ResourceProviderServer }

// panicLog records what a guarded server logs.
type panicLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *panicLog) log(_ context.Context, urn resource.URN, msg string, stack []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, string(urn)+" "+msg+"\n"+string(stack))
}

// Every method of the engine's protocol that panics is answered with an Internal
// error naming the call and its subject, and logged with the stack; none falls
// through to the Unimplemented server guarded embeds.
func TestGuardedAnswersEveryMethodsPanic(t *testing.T) {
	t.Parallel()
	const urn = "urn:pulumi:dev::p::" + spec.EndpointSliceToken + "::web"
	iface := reflect.TypeFor[rpc.ResourceProviderServer]()
	for i := range iface.NumMethod() {
		m := iface.Method(i)
		if !m.IsExported() {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			var logged panicLog
			g := guarded{inner: panicking{}, log: logged.log}
			err := callWithZeroRequest(t, reflect.ValueOf(g).MethodByName(m.Name), urn)
			if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), "internal error in "+m.Name) {
				t.Fatalf("%s answered %v, want an Internal error naming the call", m.Name, err)
			}
			if takesURN(m.Type) && !strings.Contains(err.Error(), "of "+urn) {
				t.Errorf("%s answered %v, want it to name the URN", m.Name, err)
			}
			msg := status.Convert(err).Message()
			if len(logged.entries) != 1 || !strings.Contains(logged.entries[0], msg) || !strings.Contains(logged.entries[0], "goroutine") {
				t.Errorf("logged %q, want the message and the stack", logged.entries)
			}
		})
	}
}

// takesURN tells whether a method's request has a URN.
func takesURN(m reflect.Type) bool {
	if m.NumIn() < 2 || m.In(1).Kind() != reflect.Pointer {
		return false
	}
	f, ok := m.In(1).Elem().FieldByName("Urn")
	return ok && (f.Type.Kind() == reflect.String || f.Type == reflect.TypeFor[*string]())
}

// callWithZeroRequest calls a method of the protocol with an empty request, its URN
// set to urn where it has one, and returns its error.
func callWithZeroRequest(t *testing.T, method reflect.Value, urn string) error {
	t.Helper()
	mt := method.Type()
	if mt.NumIn() == 2 && mt.In(0).Kind() == reflect.Pointer && mt.In(1).Kind() == reflect.Interface {
		// List(request, stream)
		out := method.Call([]reflect.Value{reflect.New(mt.In(0).Elem()), reflect.ValueOf(fakeStream{ctx: t.Context()})})
		err, _ := out[0].Interface().(error)
		return err
	}
	req := reflect.New(mt.In(1).Elem())
	switch f := req.Elem().FieldByName("Urn"); {
	case !f.IsValid():
	case f.Kind() == reflect.String:
		f.SetString(urn)
	case f.Kind() == reflect.Pointer: // optional, as Configure's
		f.Set(reflect.ValueOf(&urn))
	}
	out := method.Call([]reflect.Value{reflect.ValueOf(t.Context()), req})
	err, _ := out[1].Interface().(error)
	return err
}

// fakeStream is a List stream that takes every response.
type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context     { return s.ctx }
func (s fakeStream) Send(*rpc.ListResponse) error { return nil }

// A panic in a resource's lifecycle, under pulumi-go-provider's server and across real
// gRPC, is the answer to its call, and the plugin serves the next call.
func TestPanicInAHandlerIsAnsweredNotFatal(t *testing.T) {
	t.Parallel()
	s := newServer(t.Context(), noEnv)
	s.resources.byToken[tokens.Type(spec.EndpointSliceToken)] = panickingLifecycle{}
	srv, err := s.rpcServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := dialed(t, srv)
	urn := "urn:pulumi:dev::p::" + spec.EndpointSliceToken + "::web"
	for range 2 { // the second call shows the plugin still serves
		_, err := client.Check(t.Context(), &rpc.CheckRequest{Urn: urn})
		if status.Code(err) != codes.Internal ||
			!strings.Contains(err.Error(), "internal error in Check of "+urn+": a bug in Check; please report it") {
			t.Fatalf("Check answered %v, want an Internal error naming the call and the panic", err)
		}
	}
	if _, err := client.GetSchema(t.Context(), &rpc.GetSchemaRequest{}); err != nil {
		t.Errorf("GetSchema after the panics: %v", err)
	}
}

// A panic in a goroutine of a call, carried to the call's goroutine (package crash),
// is answered with its own value and logged with its own stack.
func TestGuardedAnswersACarriedPanic(t *testing.T) {
	t.Parallel()
	var logged panicLog
	carried := &crash.Panic{Value: "in an item", Stack: []byte("goroutine 7 [running]:\nkube.fanOut")}
	g := guarded{inner: carrying{p: carried}, log: logged.log}
	_, err := g.Invoke(t.Context(), &rpc.InvokeRequest{Tok: spec.ImportDataFileToken})
	want := "internal error in Invoke of " + spec.ImportDataFileToken + ": in an item; please report it"
	if status.Code(err) != codes.Internal || !strings.Contains(err.Error(), want) {
		t.Fatalf("Invoke answered %v, want %q", err, want)
	}
	if len(logged.entries) != 1 || !strings.Contains(logged.entries[0], "kube.fanOut") {
		t.Errorf("logged %q, want the carried stack", logged.entries)
	}
}

// carrying panics in Invoke with a panic carried from another goroutine; its other
// methods are not called.
type carrying struct {
	rpc.ResourceProviderServer
	p *crash.Panic
}

func (c carrying) Invoke(context.Context, *rpc.InvokeRequest) (*rpc.InvokeResponse, error) {
	panic(c.p)
}

// panickingLifecycle panics in every method.
type panickingLifecycle struct{ kube.Lifecycle }

func (panickingLifecycle) Check(context.Context, p.CheckRequest) (p.CheckResponse, error) {
	panic("a bug in Check")
}

// dialed serves srv on a local port for the test's life and returns a client of it.
func dialed(t *testing.T, srv rpc.ResourceProviderServer) rpc.ResourceProviderClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gs := grpc.NewServer()
	rpc.RegisterResourceProviderServer(gs, srv)
	go func() { _ = gs.Serve(lis) }()
	t.Cleanup(gs.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return rpc.NewResourceProviderClient(conn)
}
