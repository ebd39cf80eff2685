/**
 * What the xDS server tells its listeners (serve's log lines, the admin
 * port's metrics, the idle collector, tests that wait for an ACK): one typed
 * event per protocol step, so a listener cannot misname an event or misread
 * its payload.
 */
import type { NackRecord } from '../cache/cache.js';
import type { StreamStatus } from './status.js';

/** A request or response of one type on one stream. */
export interface TypeEvent {
  /** The node id (empty until a request names it). */
  node: string;
  typeUrl: string;
  /** The stream's id (StreamStatus.id). */
  stream: number;
}

/** A response sent, or ACKed, in `version` (SotW `version_info`, delta `system_version_info`). */
export interface VersionEvent extends TypeEvent {
  version: string;
}

/** A request answering a nonce that is not the latest one sent for its type: ignored. */
export interface StaleEvent extends TypeEvent {
  nonce: string;
}

export interface XdsEvents {
  /** A stream opened. */
  connect: [StreamStatus];
  /** A stream ended. */
  disconnect: [StreamStatus];
  /** The first request of a stream named its node. */
  node: [StreamStatus];
  push: [VersionEvent];
  ack: [VersionEvent];
  nack: [NackRecord];
  stale: [StaleEvent];
  /** A request was handled, with any response it caused. */
  request: [TypeEvent];
}

/** The emitting side, as the streams hold it. */
export interface XdsEventSink {
  emit<K extends keyof XdsEvents>(event: K, ...payload: XdsEvents[K]): boolean;
}
