package google

import (
	"encoding/json"
	"io"
	"net/http"

	"google.golang.org/api/googleapi"
)

// maxAnswerBytes bounds the part of an answer that is read: the largest answer a
// lookup expects, an IAM policy of 1,500 principals, is far smaller.
const maxAnswerBytes = 16 << 20

// getJSON sends req, a GET, on hc and decodes the JSON answer into out, as the
// generated clients do: 304 and any status outside 2xx are *googleapi.Error, and 204
// leaves out as it is. At most maxAnswerBytes of the answer are read. When req's
// context has ended, its error is returned instead of the transport's.
func getJSON(hc *http.Client, req *http.Request, out any) (googleapi.ServerResponse, error) {
	res, err := hc.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return googleapi.ServerResponse{}, ctxErr
		}
		return googleapi.ServerResponse{}, err
	}
	defer googleapi.CloseBody(res)
	if res.StatusCode == http.StatusNotModified {
		return googleapi.ServerResponse{}, &googleapi.Error{Code: res.StatusCode, Header: res.Header}
	}
	if err := googleapi.CheckResponse(res); err != nil {
		return googleapi.ServerResponse{}, err
	}
	answer := googleapi.ServerResponse{Header: res.Header, HTTPStatusCode: res.StatusCode}
	if res.StatusCode == http.StatusNoContent {
		return answer, nil
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxAnswerBytes))
	if err != nil {
		return googleapi.ServerResponse{}, err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return googleapi.ServerResponse{}, err
	}
	return answer, nil
}
