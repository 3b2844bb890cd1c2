package googledouble

// The JSON shapes below follow the APIs' discovery documents. Empty fields are left out
// of answers, as Google leaves them out, so clients see what the real APIs send.

// ImportDataFile is a Migration Center import data file.
type ImportDataFile struct {
	// Name is the full resource name; AddImportDataFile fills it in when empty.
	Name           string          `json:"name,omitempty"`
	DisplayName    string          `json:"displayName,omitempty"`
	Format         string          `json:"format,omitempty"`
	CreateTime     string          `json:"createTime,omitempty"`
	State          string          `json:"state,omitempty"`
	UploadFileInfo *UploadFileInfo `json:"uploadFileInfo,omitempty"`
}

// UploadFileInfo says where and how to upload an import data file's contents.
type UploadFileInfo struct {
	SignedURI         string            `json:"signedUri,omitempty"`
	Headers           map[string]string `json:"headers,omitempty"`
	URIExpirationTime string            `json:"uriExpirationTime,omitempty"`
}

// Policy is an IAM policy (google.iam.v1.Policy).
type Policy struct {
	Version      int           `json:"version,omitempty"`
	Bindings     []Binding     `json:"bindings,omitempty"`
	AuditConfigs []AuditConfig `json:"auditConfigs,omitempty"`
	// Etag is sent base64-encoded, as Google sends it; nil answers the etag of an
	// empty policy ("ACAB").
	Etag []byte `json:"etag,omitempty"`
}

// Binding grants a role to members, optionally under a condition.
type Binding struct {
	Role      string   `json:"role,omitempty"`
	Members   []string `json:"members,omitempty"`
	Condition *Expr    `json:"condition,omitempty"`
}

// Expr is a condition in Common Expression Language.
type Expr struct {
	Expression  string `json:"expression,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Location    string `json:"location,omitempty"`
}

// AuditConfig is the audit logging configuration of one service.
type AuditConfig struct {
	Service         string           `json:"service,omitempty"`
	AuditLogConfigs []AuditLogConfig `json:"auditLogConfigs,omitempty"`
}

// AuditLogConfig is the audit logging configuration of one permission type.
type AuditLogConfig struct {
	LogType         string   `json:"logType,omitempty"`
	ExemptedMembers []string `json:"exemptedMembers,omitempty"`
}

// emptyPolicyEtag is the etag Google answers for a resource without a policy ("ACAB").
var emptyPolicyEtag = []byte{0x00, 0x20, 0x01}

// conditional reports whether any binding of the policy has a condition.
func (p Policy) conditional() bool {
	for _, b := range p.Bindings {
		if b.Condition != nil {
			return true
		}
	}
	return false
}

// errorEnvelope is Google's JSON error body.
type errorEnvelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	// Details are google.rpc status details, each with its "@type".
	Details []any `json:"details,omitempty"`
}
