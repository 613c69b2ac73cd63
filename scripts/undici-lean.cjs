'use strict';
// The part of undici callctl uses (EnvHttpProxyAgent, request), for the build only:
// undici's index.js loads every feature (fetch, WebSocket, mocks, caches...), a megabyte of code
// parsed on every run. These are undici's own modules of the locked version; the wiring below
// is what its index.js does for them. Tests run against the full package.
const Dispatcher = require('undici/lib/dispatcher/dispatcher');
const EnvHttpProxyAgent = require('undici/lib/dispatcher/env-http-proxy-agent');
const api = require('undici/lib/api');

Object.assign(Dispatcher.prototype, api);

function request(url, options = {}) {
  const { dispatcher, ...rest } = options;
  if (!dispatcher) throw new TypeError('callctl: request() needs a dispatcher');
  const target = new URL(url);
  return dispatcher.request({ ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
}

module.exports = { EnvHttpProxyAgent, request };
