// Structured JSON logs, one object per line on stdout (or a custom sink). Never log API keys.
// Every line is `{ time, level, pid, msg, ...fields }`: the pid tells apart the processes of `inkprep
// cluster`, which share one stdout. Nothing but these lines is written to stdout (human messages such as
// the first key go to stderr), so the stream can be piped straight into a log collector.
// Lines to stdout are batched: one write per event-loop turn (and a final flush at exit).
import { writeSync } from 'node:fs';
import type { LogLevel } from './config.js';

let pending: string[] = [];
let scheduled = false;
function flushStdout(): void {
  scheduled = false;
  if (pending.length === 0) return;
  const text = pending.join('');
  pending = [];
  try {
    writeSync(1, text);
  } catch {
    // stdout closed or full: drop log lines rather than fail requests
  }
}
process.once('exit', flushStdout);

/** The default sink: stdout, batched per event-loop turn. */
export function stdoutSink(line: string): void {
  pending.push(line);
  if (!scheduled) {
    scheduled = true;
    setImmediate(flushStdout);
  }
}

export type LogFields = Record<string, unknown>;

/** A minimal leveled logger; `child` adds fields (e.g. the request id) to every line. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
  /** Whether lines of `level` are written (skip building a line nobody reads). */
  enabled(level: Exclude<LogLevel, 'silent'>): boolean;
  /** Hot path: `fieldsJson` is already-serialised `,"key":value` pairs appended after msg (caller escapes). */
  raw(level: Exclude<LogLevel, 'silent'>, msg: string, fieldsJson: string): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

let lastMs = -1;
let lastIso = '';
/** ISO time of now, computed at most once per millisecond. */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const quotedKeys = new Map<string, string>();
function quoteKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (quotedKeys.size < 1000) quotedKeys.set(k, q);
  }
  return q;
}

/** Append `,"key":value` pairs of a flat fields object (undefined values skipped). */
function appendFields(line: string, fields: LogFields): string {
  for (const k in fields) {
    const v = fields[k];
    if (v === undefined) continue;
    line += ',' + quoteKey(k) + ':' + (typeof v === 'number' && Number.isFinite(v) ? String(v) : JSON.stringify(v));
  }
  return line;
}

const PID = ',"pid":' + process.pid + ',"msg":';

/** The start of a line, up to and including the serialised msg. */
function head(lvl: Exclude<LogLevel, 'silent'>, msg: string): string {
  return '{"time":"' + isoNow() + '","level":"' + lvl + '"' + PID + JSON.stringify(msg);
}

/** Create a logger writing JSON lines `{ time, level, pid, msg, ...fields }` to `sink` (default stdout). */
export function createLogger(level: LogLevel, sink: (line: string) => void = stdoutSink, base: LogFields = {}): Logger {
  const min = RANK[level];
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void => {
    if (RANK[lvl] < min) return;
    let line: string;
    try {
      line = appendFields(head(lvl, msg), base);
      if (fields) line = appendFields(line, fields);
      line += '}';
    } catch {
      line = JSON.stringify({ time: isoNow(), level: lvl, pid: process.pid, msg, note: 'fields not serialisable' });
    }
    sink(line + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, sink, { ...base, ...fields }),
    enabled: (lvl) => RANK[lvl] >= min,
    raw: (lvl, msg, fieldsJson) => {
      if (RANK[lvl] < min) return;
      sink(appendFields(head(lvl, msg), base) + fieldsJson + '}\n');
    },
  };
}
