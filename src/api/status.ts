// Kubernetes-style Status error bodies (metav1.Status), as the API server sends them with 4xx/5xx.
export const StatusReason = {
  BAD_REQUEST: "BadRequest",
  NOT_FOUND: "NotFound",
  METHOD_NOT_ALLOWED: "MethodNotAllowed",
  NOT_ACCEPTABLE: "NotAcceptable",
  REQUEST_HEADER_FIELDS_TOO_LARGE: "RequestHeaderFieldsTooLarge",
  TIMEOUT: "Timeout",
  INTERNAL_ERROR: "InternalError",
} as const;
export type StatusReason = (typeof StatusReason)[keyof typeof StatusReason];

export interface StatusBody {
  readonly kind: "Status";
  readonly apiVersion: "v1";
  readonly metadata: Record<string, never>;
  readonly status: "Failure";
  readonly message: string;
  readonly reason: StatusReason;
  readonly details?: { readonly name?: string; readonly group?: string; readonly kind?: string };
  readonly code: number;
}

/** An API error: the HTTP code and the Status body that goes with it. */
export class ApiError {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    readonly message: string,
    readonly details?: StatusBody["details"],
  ) {}

  body(): StatusBody {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
      ...(this.details === undefined ? {} : { details: this.details }),
      code: this.code,
    };
  }
}

/** The catch-all 404 for paths the server does not serve. */
export const pathNotFound = (): ApiError => new ApiError(404, StatusReason.NOT_FOUND, "the server could not find the requested resource");

/** `pods "web1" not found` with details as upstream fills them (group omitted for the core group). */
export function objectNotFound(resource: string, group: string, name: string): ApiError {
  const qualified = group === "" ? resource : `${resource}.${group}`;
  return new ApiError(404, StatusReason.NOT_FOUND, `${qualified} "${name}" not found`, { name, ...(group === "" ? {} : { group }), kind: resource });
}

export const badRequest = (message: string): ApiError => new ApiError(400, StatusReason.BAD_REQUEST, message);

export const methodNotAllowed = (method: string): ApiError =>
  new ApiError(405, StatusReason.METHOD_NOT_ALLOWED, `the server does not allow this method on the requested resource (${method}): cnisim serves a read-only API`);
