import { errorResponse } from './errors';

/** The request methods a route handler may serve (HEAD and OPTIONS follow from them). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

const ROUTE_METHODS: readonly RouteMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** A handler for each method a route does not serve, and its OPTIONS answer. */
export type OtherMethods = Record<RouteMethod | 'OPTIONS', (request: Request) => Response>;

/**
 * Answers for the methods a route does not serve, so they get the API's JSON error instead of
 * Next's empty 405: `405 { error: { code: 'METHOD_NOT_ALLOWED', message } }` with an `Allow` header
 * naming what the route serves (a 405 must carry one: RFC 9110 §15.5.6), and `OPTIONS` answering
 * 204 with the same header. A route file exports the handlers of the methods it lacks:
 *
 *     export const { GET, PUT, PATCH, DELETE, OPTIONS } = otherMethods('POST');
 *
 * Nothing is read or checked first (not even the session): which methods a route serves is public,
 * like the OpenAPI document.
 * @param served the methods the route's own handlers serve
 * @returns a handler per method (only those the route lacks are exported), and OPTIONS
 */
export function otherMethods(...served: RouteMethod[]): OtherMethods {
  const allow = [...served, ...(served.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  const refuse = (request: Request) => {
    const response = errorResponse(405, 'METHOD_NOT_ALLOWED', `This route does not accept ${request.method}; it accepts ${served.join(', ')}.`);
    response.headers.set('allow', allow);
    return response;
  };
  const handlers = Object.fromEntries(ROUTE_METHODS.map((method) => [method, refuse])) as OtherMethods;
  handlers.OPTIONS = () => new Response(null, { status: 204, headers: { allow } });
  return handlers;
}
