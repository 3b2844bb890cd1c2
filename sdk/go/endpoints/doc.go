// Manage Kubernetes Endpoints and EndpointSlice objects, and look up Google Cloud Migration Center import data files and the IAM policies of BeyondCorp partner-tenant proxy configurations.
package endpoints
