// node:http's answer to a request its parser refuses (a Content-Length that is not a decimal number, or that
// overflows 64 bits; Content-Length together with Transfer-Encoding; a duplicate Content-Length; a bad
// Transfer-Encoding ...): the handler never runs, and node's own 'clientError' default sends a bare
// `400 Bad Request` without a body. Here the client gets a JSON error body like every other reply, then the
// connection is closed (the request's framing cannot be trusted, so nothing after it can be read).
// uWebSockets.js 20.30 refuses the same requests in its parser by closing the connection without a response
// and offers no hook (docs/guides/operating.md, "Malformed requests").
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type HttpErrorCode } from '../errors/registry.js';
import { JSON_TYPE, statusLine } from '../http/reply.js';

/** What node attaches to a parser error (llhttp's code, and the bytes read so far). */
interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

/** The Content-Length header's value as sent, read from the bytes the parser refused (null when absent). */
function rawContentLength(raw: Buffer | undefined): string | null {
  if (!raw) return null;
  const m = /\r\ncontent-length:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(raw.toString('latin1'));
  return m ? m[1]! : null;
}

/** The reply for a parser error: status, code and message; null for the errors node answers best itself. */
export function clientErrorReply(err: ClientError): { code: HttpErrorCode; message: string } | null {
  switch (err.code) {
    case 'HPE_INVALID_CONTENT_LENGTH': {
      const cl = rawContentLength(err.rawPacket);
      // Digits only: a number too large for 64 bits, far over every upload limit (the contract's 413).
      if (cl !== null && /^\d+$/.test(cl)) return { code: 'image_too_large', message: `Content-Length ${cl.length > 24 ? cl.slice(0, 21) + '...' : cl} is over this service's upload limit` };
      return { code: 'malformed_request', message: 'Content-Length must be a non-negative decimal number of bytes' };
    }
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { code: 'malformed_request', message: 'Content-Length was sent more than once' };
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return { code: 'malformed_request', message: 'Send either Content-Length or Transfer-Encoding: chunked (not both); chunked must be the last transfer coding' };
    default:
      // Other parse errors are malformed requests too; header overflow (431) and timeouts (408) keep node's answer.
      if (err.code?.startsWith('HPE_') && err.code !== 'HPE_HEADER_OVERFLOW') return { code: 'malformed_request', message: `The request is not valid HTTP/1.1 (${err.code})` };
      return null;
  }
}

/** The 'clientError' listener of the node:http transport. */
export function answerClientError(err: ClientError, socket: Duplex): void {
  const reply = socket.writable ? clientErrorReply(err) : null;
  if (!reply) {
    // node's own default answer for the rest (431, 408; nothing on a reset).
    if (!socket.writable || err.code === 'ECONNRESET') socket.destroy();
    else if (err.code === 'HPE_HEADER_OVERFLOW') socket.end('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
    else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    else socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    return;
  }
  const body = JSON.stringify({ error: reply.message, code: reply.code });
  socket.end(
    `HTTP/1.1 ${statusLine(ERROR_CODES[reply.code].status)}\r\nContent-Type: ${JSON_TYPE}\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
  );
}
