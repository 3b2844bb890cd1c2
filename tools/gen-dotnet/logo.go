package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"strings"
)

// offlineIcon is the HTTP transport of this command: the .NET generator's only
// request is the download of the package icon, answered here with icon().
type offlineIcon struct{}

func (offlineIcon) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, ".png") {
		return nil, fmt.Errorf("pulumi-gen-dotnet works offline: refusing %s %s", req.Method, req.URL)
	}
	body := icon()
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": []string{"image/png"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

// icon draws the 64x64 package icon: three connected endpoint dots on a dark
// background. The drawing and the PNG encoding are deterministic, so regenerating
// the SDK yields the same bytes.
func icon() []byte {
	const size = 64
	bg := color.NRGBA{R: 0x1f, G: 0x2a, B: 0x44, A: 0xff}
	fg := color.NRGBA{R: 0xf7, G: 0xbf, B: 0x2a, A: 0xff}
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	dots := [][2]int{{16, 44}, {32, 20}, {48, 44}}
	for y := range size {
		for x := range size {
			c := bg
			for i, d := range dots {
				dx, dy := x-d[0], y-d[1]
				if dx*dx+dy*dy <= 36 {
					c = fg
				}
				// Lines from each dot to the next one.
				e := dots[(i+1)%len(dots)]
				if onSegment(x, y, d, e) {
					c = fg
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(fmt.Sprintf("internal error: encode icon: %v", err))
	}
	return buf.Bytes()
}

// onSegment reports whether (x, y) lies within 1.5 pixels of the segment a-b.
func onSegment(x, y int, a, b [2]int) bool {
	ax, ay, bx, by := float64(a[0]), float64(a[1]), float64(b[0]), float64(b[1])
	px, py := float64(x), float64(y)
	dx, dy := bx-ax, by-ay
	t := ((px-ax)*dx + (py-ay)*dy) / (dx*dx + dy*dy)
	if t < 0 || t > 1 {
		return false
	}
	cx, cy := ax+t*dx-px, ay+t*dy-py
	return cx*cx+cy*cy <= 2.25
}
