/**
 * The operators' HTTP API (docs/api.md): the route table ({@link granary.http.Api}), its servlet,
 * tokens with roles, the audit log, the allocation stream and the OpenAPI description. Plain
 * Jakarta Servlet code over the {@link granary.api.event.Scheduler} service; the OSGi component in
 * {@code granary.http.osgi} puts it on the HTTP whiteboard. Exports nothing.
 */
package granary.http;
