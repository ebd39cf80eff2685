/** What the router does with the RouteAction and VirtualHost fields of translate/route-extras.ts, as explain lines. */
import type { Json } from '../translate/output.js';

export function routeActionDetails(action: Json, vh: Json): string[] {
  const out: string[] = [];
  const regex = action.host_rewrite_path_regex as { pattern: { regex: string }; substitution: string } | undefined;
  if (regex)
    out.push(
      `host rewritten to the path with ${JSON.stringify(regex.pattern.regex)} replaced by ${JSON.stringify(regex.substitution)} (host_rewrite_path_regex)`,
    );
  if (action.host_rewrite_header !== undefined)
    out.push(
      `host rewritten to the request's ${JSON.stringify(action.host_rewrite_header)} header, when it has one (host_rewrite_header)`,
    );
  if (action.auto_host_rewrite === true) out.push("host rewritten to the upstream host's name (auto_host_rewrite)");
  if (action.append_x_forwarded_host === true) out.push('the original host appended to x-forwarded-host');
  if (action.idle_timeout !== undefined) out.push(`idle timeout ${action.idle_timeout as string}`);
  const m = action.max_stream_duration as Json | undefined;
  if (m) {
    const parts = [
      m.max_stream_duration !== undefined ? `at most ${m.max_stream_duration as string}` : '',
      m.grpc_timeout_header_max !== undefined
        ? `grpc-timeout honoured up to ${m.grpc_timeout_header_max === '0s' ? 'any value' : (m.grpc_timeout_header_max as string)}${m.grpc_timeout_header_offset !== undefined ? ` less ${m.grpc_timeout_header_offset as string}` : ''}`
        : '',
    ].filter((p) => p !== '');
    out.push(`stream duration: ${parts.join('; ')} (max_stream_duration)`);
  }
  if (vh.include_request_attempt_count === true) out.push('x-envoy-attempt-count sent upstream');
  if (vh.include_attempt_count_in_response === true) out.push('x-envoy-attempt-count on the response');
  return out;
}
