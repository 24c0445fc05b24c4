import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { Connection, isRetryableError, makeGrpcRetryInterceptor } from '@temporalio/client';

// The long poll behind `handle.result()`: the server holds it open for up to 20 s and the SDK loops, so no deadline.
const LONG_POLL_METHODS = new Set(['GetWorkflowExecutionHistory']);

/** Gives every call without a deadline one `timeoutMs` away; `withDeadline` and long polls keep theirs. */
function defaultDeadline(timeoutMs: number): Interceptor {
  return (options, nextCall) => {
    const method = options.method_definition.path.split('/').pop() ?? '';
    const keep = options.deadline !== undefined || LONG_POLL_METHODS.has(method);
    return new InterceptingCall(nextCall(keep ? options : { ...options, deadline: Date.now() + timeoutMs }));
  };
}

/**
 * The SDK's retry of transient gRPC failures, cut to about one second (4 attempts) from the SDK's
 * ~20 s: enough to ride out a blip, short enough that a request to a Temporal that is down is
 * answered 503 at once and the client, told Retry-After, tries again.
 */
const retryTransientFailures: Interceptor = makeGrpcRetryInterceptor({
  retryableDecider: (attempt, status) => attempt < 4 && isRetryableError(status),
  delayFunction: (attempt) => 100 * 1.7 ** attempt * (0.8 + Math.random() * 0.4),
});

/**
 * A lazy client connection whose calls each end within `rpcTimeoutMs` (so a request fails fast
 * while Temporal is down) and which reconnects within seconds once the server is back.
 */
export function connectTemporalLazily(address: string, rpcTimeoutMs: number): Connection {
  return Connection.lazy({
    address,
    // The deadline goes first (outermost), so every retry attempt shares it.
    interceptors: [defaultDeadline(rpcTimeoutMs), retryTransientFailures],
    // gRPC backs off reconnecting up to 2 minutes by default; a restarted server should be used again at once.
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 3000 },
  });
}
