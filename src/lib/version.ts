/** Version of the public API contract (`info.version` of the OpenAPI document). */
export const API_VERSION = '1.1.0';
