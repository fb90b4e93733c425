// Route helpers: every endpoint is declared with getRoute() or postImageRoute() and listed in
// routes/index.ts. This module is where routes import them from; each lives in its own file:
// route-def.ts (what a route is), get-route.ts, image-route.ts (the straight line of every image POST),
// caller.ts (authentication) and metered-reply.ts (the metered end of a request).
export * from './route-def.js';
export { authenticateExchange } from './caller.js';
export * from './get-route.js';
export * from './image-route.js';
