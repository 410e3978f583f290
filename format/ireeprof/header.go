package ireeprof

// magic is "IRPF" read as a little-endian u32 (spec §2).
const magic = 0x46505249

// fileHeader is the bundle's 24-byte header (16 bytes in development minors).
type fileHeader struct {
	versionMajor, versionMinor uint16
	headerLen                  uint32
	flags                      uint32
	fileLength                 uint64
	// hasFileLength is false for the 16-byte development header, which
	// cannot say whether the bundle was finalised.
	hasFileLength bool
	// cut is set when the file ends inside its own header; present is how
	// many header bytes there are.
	cut     bool
	present int64
}

// readHeader decodes the file header. It fails only when the file is not a
// bundle tally can read; a header cut short is reported in fileHeader.cut.
func readHeader(w *window) (fileHeader, error) {
	var h fileHeader
	size := w.size
	n := int64(fileHeaderLen)
	if size < n {
		n = size
	}
	b, err := w.get(0, int(n))
	if err != nil {
		return h, err
	}
	if len(b) >= 4 && u32(b, 0) != magic {
		return h, errorf(w.path, 0, "not an IREE HAL profile bundle: the magic is % x, expected \"IRPF\" (give the right --format, or check the file)", b[:4])
	}
	if len(b) >= 6 {
		h.versionMajor = u16(b, 4)
		if h.versionMajor != 1 {
			return h, errorf(w.path, 4, "bundle format version %d is not supported: tally reads version 1.x (IREE HAL profile files); use an iree-profile that matches the producer", h.versionMajor)
		}
	}
	if len(b) >= 8 {
		h.versionMinor = u16(b, 6)
	}
	if len(b) >= 12 {
		h.headerLen = u32(b, 8)
		if h.headerLen == devHeaderLen && size >= devHeaderLen {
			h.flags = u32(b, 12)
			return h, nil
		}
		if h.headerLen < fileHeaderLen {
			return h, errorf(w.path, 8, "header_length is %d, below the 24 bytes of the version 1 header: the file is damaged", h.headerLen)
		}
		if int64(h.headerLen) > size && size >= fileHeaderLen {
			return h, errorf(w.path, 8, "header_length is %d but the file has only %d bytes: the file is cut inside its header or damaged", h.headerLen, size)
		}
	}
	if len(b) < fileHeaderLen {
		h.cut, h.present = true, int64(len(b))
		return h, nil
	}
	h.flags = u32(b, 12)
	h.fileLength = u64(b, 16)
	h.hasFileLength = true
	return h, nil
}

// finalised reports whether the writer patched file_length after a session
// end (spec §2).
func (h *fileHeader) finalised() bool { return h.hasFileLength && h.fileLength != 0 }
