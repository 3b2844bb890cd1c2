package provider

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/diag"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	comProvider "github.com/pulumi/pulumi/sdk/v3/go/pulumi/provider"
	rpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/endpoints-provider/pulumi-endpoints/provider/internal/crash"
)

// guarded is the plugin's gRPC server with every call guarded: a panic while serving
// a call (in this provider, in pulumi-go-provider, in the libraries they call) would
// end the plugin, and the engine with it mid-update. Each method recovers it, logs it
// with its stack, and answers the engine an Internal error that names the call and
// its resource or token, so that the other calls go on.
//
// Every method of rpc.ResourceProviderServer is written out below (Go cannot wrap an
// interface's methods otherwise, and the SDK's MainContext takes no gRPC
// interceptor); the embedded Unimplemented server only satisfies the interface, and a
// test calls each method of the interface to see that none falls through to it.
type guarded struct {
	rpc.UnimplementedResourceProviderServer
	inner rpc.ResourceProviderServer
	// log records a recovered panic: the message, then the stack.
	log func(ctx context.Context, urn resource.URN, msg string, stack []byte)
}

// guard serves inner with every call guarded (see guarded), logging through host, the
// engine (nil: slog's default logger).
func guard(inner rpc.ResourceProviderServer, host *comProvider.HostClient) guarded {
	return guarded{inner: inner, log: func(ctx context.Context, urn resource.URN, msg string, stack []byte) {
		if host != nil {
			if err := host.Log(ctx, diag.Error, urn, msg+"\n"+string(stack)); err == nil {
				return
			}
		}
		slog.Default().ErrorContext(ctx, msg, "urn", string(urn), "stack", string(stack))
	}}
}

// catch, deferred by a method of guarded, turns a panic of the call (named by call,
// and by subject, its resource's URN or its token, when there is one) into *err.
func (g guarded) catch(ctx context.Context, call, subject string, err *error) {
	v := recover()
	if v == nil {
		return
	}
	stack := debug.Stack()
	if p, ok := v.(*crash.Panic); ok {
		// A panic in a goroutine of the call, carried to the call's goroutine: the
		// stack that matters is that goroutine's.
		v, stack = p.Value, p.Stack
	}
	if subject != "" {
		call += " of " + subject
	}
	msg := fmt.Sprintf("internal error in %s: %v; please report it", call, v)
	var urn resource.URN
	if strings.HasPrefix(subject, "urn:") {
		urn = resource.URN(subject)
	}
	g.log(ctx, urn, msg, stack)
	*err = status.Error(codes.Internal, msg)
}

// guardCall serves one unary call through serve, guarded (see guarded.catch).
func guardCall[Req, Resp any](ctx context.Context, g guarded, call, subject string, req Req,
	serve func(context.Context, Req) (Resp, error),
) (resp Resp, err error) {
	defer g.catch(ctx, call, subject, &err)
	return serve(ctx, req)
}

func (g guarded) Handshake(ctx context.Context, req *rpc.ProviderHandshakeRequest) (*rpc.ProviderHandshakeResponse, error) {
	return guardCall(ctx, g, "Handshake", "", req, g.inner.Handshake)
}

func (g guarded) Parameterize(ctx context.Context, req *rpc.ParameterizeRequest) (*rpc.ParameterizeResponse, error) {
	return guardCall(ctx, g, "Parameterize", "", req, g.inner.Parameterize)
}

func (g guarded) GetSchema(ctx context.Context, req *rpc.GetSchemaRequest) (*rpc.GetSchemaResponse, error) {
	return guardCall(ctx, g, "GetSchema", "", req, g.inner.GetSchema)
}

func (g guarded) CheckConfig(ctx context.Context, req *rpc.CheckRequest) (*rpc.CheckResponse, error) {
	return guardCall(ctx, g, "CheckConfig", req.GetUrn(), req, g.inner.CheckConfig)
}

func (g guarded) DiffConfig(ctx context.Context, req *rpc.DiffRequest) (*rpc.DiffResponse, error) {
	return guardCall(ctx, g, "DiffConfig", req.GetUrn(), req, g.inner.DiffConfig)
}

func (g guarded) Configure(ctx context.Context, req *rpc.ConfigureRequest) (*rpc.ConfigureResponse, error) {
	return guardCall(ctx, g, "Configure", req.GetUrn(), req, g.inner.Configure)
}

func (g guarded) Invoke(ctx context.Context, req *rpc.InvokeRequest) (*rpc.InvokeResponse, error) {
	return guardCall(ctx, g, "Invoke", req.GetTok(), req, g.inner.Invoke)
}

func (g guarded) Call(ctx context.Context, req *rpc.CallRequest) (*rpc.CallResponse, error) {
	return guardCall(ctx, g, "Call", req.GetTok(), req, g.inner.Call)
}

func (g guarded) Check(ctx context.Context, req *rpc.CheckRequest) (*rpc.CheckResponse, error) {
	return guardCall(ctx, g, "Check", req.GetUrn(), req, g.inner.Check)
}

func (g guarded) Diff(ctx context.Context, req *rpc.DiffRequest) (*rpc.DiffResponse, error) {
	return guardCall(ctx, g, "Diff", req.GetUrn(), req, g.inner.Diff)
}

func (g guarded) Create(ctx context.Context, req *rpc.CreateRequest) (*rpc.CreateResponse, error) {
	return guardCall(ctx, g, "Create", req.GetUrn(), req, g.inner.Create)
}

func (g guarded) Read(ctx context.Context, req *rpc.ReadRequest) (*rpc.ReadResponse, error) {
	return guardCall(ctx, g, "Read", req.GetUrn(), req, g.inner.Read)
}

func (g guarded) Update(ctx context.Context, req *rpc.UpdateRequest) (*rpc.UpdateResponse, error) {
	return guardCall(ctx, g, "Update", req.GetUrn(), req, g.inner.Update)
}

func (g guarded) Delete(ctx context.Context, req *rpc.DeleteRequest) (*emptypb.Empty, error) {
	return guardCall(ctx, g, "Delete", req.GetUrn(), req, g.inner.Delete)
}

func (g guarded) List(req *rpc.ListRequest, stream grpc.ServerStreamingServer[rpc.ListResponse]) (err error) {
	defer g.catch(stream.Context(), "List", req.GetToken(), &err)
	return g.inner.List(req, stream)
}

func (g guarded) Construct(ctx context.Context, req *rpc.ConstructRequest) (*rpc.ConstructResponse, error) {
	return guardCall(ctx, g, "Construct", req.GetType(), req, g.inner.Construct)
}

func (g guarded) Cancel(ctx context.Context, req *emptypb.Empty) (*emptypb.Empty, error) {
	return guardCall(ctx, g, "Cancel", "", req, g.inner.Cancel)
}

func (g guarded) GetPluginInfo(ctx context.Context, req *emptypb.Empty) (*rpc.PluginInfo, error) {
	return guardCall(ctx, g, "GetPluginInfo", "", req, g.inner.GetPluginInfo)
}

func (g guarded) Attach(ctx context.Context, req *rpc.PluginAttach) (*emptypb.Empty, error) {
	return guardCall(ctx, g, "Attach", "", req, g.inner.Attach)
}

func (g guarded) GetMapping(ctx context.Context, req *rpc.GetMappingRequest) (*rpc.GetMappingResponse, error) {
	return guardCall(ctx, g, "GetMapping", req.GetKey(), req, g.inner.GetMapping)
}

func (g guarded) GetMappings(ctx context.Context, req *rpc.GetMappingsRequest) (*rpc.GetMappingsResponse, error) {
	return guardCall(ctx, g, "GetMappings", req.GetKey(), req, g.inner.GetMappings)
}
