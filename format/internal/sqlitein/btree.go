package sqlitein

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A reader of SQLite's file format (https://www.sqlite.org/fileformat.html)
// for the one access the big tables need: every row of a rowid table in
// rowid order, integer and text columns. modernc.org/sqlite runs SQLite's
// C translated to Go, and each row then crosses database/sql, boxed in
// interfaces: for tables of tens of millions of rows that is most of a
// reader's time. This walks the table's B-tree pages directly.
//
// It reads what it understands and says so otherwise: a layout it does
// not handle (WITHOUT ROWID, UTF-16 text, a generated or defaulted column)
// or a value of another type than asked (a REAL where an integer is
// wanted) ends the scan with an *Unsupported error, and a page that is not
// what a B-tree page must be with a *Corrupt one. Either way the caller
// reads the table through SQL instead, which states the damage as SQLite
// sees it. Every offset, length and page number read from the file is
// checked before use: a damaged file never panics and never makes it
// allocate more than the pages it actually reads.

// Unsupported is a table layout or value the scanner leaves to SQL.
type Unsupported struct{ Why string }

func (u *Unsupported) Error() string { return "not scanned directly: " + u.Why }

// Corrupt is a page that breaks the file format.
type Corrupt struct {
	Page uint32
	Why  string
}

func (c *Corrupt) Error() string { return fmt.Sprintf("page %d: %s", c.Page, c.Why) }

// Fallback reports whether err means "read this table through SQL".
func Fallback(err error) bool {
	var u *Unsupported
	var c *Corrupt
	return errors.As(err, &u) || errors.As(err, &c)
}

// Kind is how a scanned column is read.
type Kind uint8

const (
	Int  Kind = iota // INTEGER or NULL
	Text             // TEXT, BLOB or NULL (as database/sql reads them into a string)
)

// Column is one column to read: its index in the table's records (-1: the
// table lacks it, always NULL) and how.
type Column struct {
	Index int
	Kind  Kind
}

const (
	leafTable     = 0x0d
	interiorTable = 0x05
	maxDepth      = 64 // a B-tree of 2^32 pages is at most ~20 deep
	blockBytes    = 1 << 18
	cacheBlocks   = 4
)

// pager reads pages through a small cache of aligned blocks: leaves of a
// table written in one go lie mostly in page order, so one read serves
// many pages, and memory stays at cacheBlocks × blockBytes whatever the
// file's size.
type pager struct {
	f        *os.File
	pageSize int
	usable   int    // page size less the reserved bytes at each page's end
	pages    uint32 // pages in the file
	perBlock uint32
	blocks   [cacheBlocks]struct {
		n    uint32 // block number + 1; 0: empty
		data []byte
	}
}

func openPager(path string) (*pager, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var h [100]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		f.Close()
		return nil, &Corrupt{1, "the header is cut"}
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	ps := int(binary.BigEndian.Uint16(h[16:18]))
	if ps == 1 {
		ps = 65536
	}
	reserved := int(h[20])
	if ps < 512 || ps&(ps-1) != 0 || ps-reserved < 480 {
		f.Close()
		return nil, &Corrupt{1, "bad page size"}
	}
	if enc := binary.BigEndian.Uint32(h[56:60]); enc != 1 {
		f.Close()
		return nil, &Unsupported{fmt.Sprintf("text encoding %d (not UTF-8)", enc)}
	}
	p := &pager{f: f, pageSize: ps, usable: ps - reserved, pages: uint32(min(st.Size()/int64(ps), 1<<31)), perBlock: uint32(max(1, blockBytes/ps))}
	return p, nil
}

func (p *pager) close() error { return p.f.Close() }

// page returns page n's bytes, valid until the next call.
func (p *pager) page(n uint32) ([]byte, error) {
	if n == 0 || n > p.pages {
		return nil, &Corrupt{n, fmt.Sprintf("page number out of the file's %d pages", p.pages)}
	}
	b := (n - 1) / p.perBlock
	slot := &p.blocks[b%cacheBlocks]
	if slot.n != b+1 {
		first := b * p.perBlock
		count := min(p.perBlock, p.pages-first)
		if cap(slot.data) < int(p.perBlock)*p.pageSize {
			slot.data = make([]byte, int(p.perBlock)*p.pageSize)
		}
		slot.data = slot.data[:int(count)*p.pageSize]
		slot.n = 0
		if _, err := p.f.ReadAt(slot.data, int64(first)*int64(p.pageSize)); err != nil {
			return nil, &Corrupt{n, "reading: " + err.Error()}
		}
		slot.n = b + 1
	}
	off := int(n-1-b*p.perBlock) * p.pageSize
	return slot.data[off : off+p.pageSize], nil
}

// readPage reads page n into buf, outside the cache (overflow pages: the
// leaf being scanned stays cached).
func (p *pager) readPage(n uint32, buf []byte) error {
	if n == 0 || n > p.pages {
		return &Corrupt{n, "overflow page number out of the file"}
	}
	if _, err := p.f.ReadAt(buf[:p.pageSize], int64(n-1)*int64(p.pageSize)); err != nil {
		return &Corrupt{n, "reading: " + err.Error()}
	}
	return nil
}

// frame is an interior page on the path from the root: a copy, since the
// cache may reuse its block while its children are read.
type frame struct {
	page  []byte
	hdr   int // offset of the page header (100 on page 1)
	cells int
	next  int // next child: 0..cells-1 are cells, cells is the right-most pointer
	pgno  uint32
}

// Scanner reads a rowid table's rows in rowid order.
type Scanner struct {
	p       *pager
	root    uint32
	cols    []Column
	maxCol  int
	stack   []frame
	visited uint32 // B-tree pages read: more than the file holds is a loop

	leaf      []byte
	leafNo    uint32
	leafHdr   int
	leafCells int
	cell      int
	started   bool

	rowid   int64
	vals    []int64
	null    []bool
	text    [][]byte
	want    []int  // by record index: the position in cols, or -1
	payload []byte // the current record when it overflows its leaf
	ovPage  []byte
	err     error
}

func newScanner(p *pager, root uint32, cols []Column) *Scanner {
	s := &Scanner{p: p, root: root, cols: cols, maxCol: -1}
	for _, c := range cols {
		s.maxCol = max(s.maxCol, c.Index)
	}
	s.vals = make([]int64, len(cols))
	s.null = make([]bool, len(cols))
	s.text = make([][]byte, len(cols))
	s.want = make([]int, s.maxCol+1)
	for i := range s.want {
		s.want[i] = -1
	}
	for i, c := range cols {
		if c.Index >= 0 {
			s.want[c.Index] = i
		}
	}
	return s
}

// Err is the error that ended the scan, if any.
func (s *Scanner) Err() error { return s.err }

// Rowid is the current row's rowid.
func (s *Scanner) Rowid() int64 { return s.rowid }

// Int is column i's value (as asked in the column list) and whether it is
// not NULL.
func (s *Scanner) Int(i int) (int64, bool) { return s.vals[i], !s.null[i] }

// Text is column i's bytes (valid until Next) and whether it is not NULL.
func (s *Scanner) Text(i int) ([]byte, bool) { return s.text[i], !s.null[i] }

// Close releases the file.
func (s *Scanner) Close() error { return s.p.close() }

func (s *Scanner) fail(err error) bool {
	s.err = err
	s.leaf = nil
	s.stack = s.stack[:0]
	return false
}

// Next moves to the next row.
func (s *Scanner) Next() bool {
	if s.err != nil {
		return false
	}
	if !s.started {
		s.started = true
		if err := s.descend(s.root); err != nil {
			return s.fail(err)
		}
	}
	for {
		if s.leaf != nil && s.cell < s.leafCells {
			if err := s.decodeCell(); err != nil {
				return s.fail(err)
			}
			s.cell++
			return true
		}
		s.leaf = nil
		// Climb to the next unread child.
		for len(s.stack) > 0 && s.stack[len(s.stack)-1].next > s.stack[len(s.stack)-1].cells {
			s.stack = s.stack[:len(s.stack)-1]
		}
		if len(s.stack) == 0 {
			return false
		}
		f := &s.stack[len(s.stack)-1]
		var child uint32
		if f.next == f.cells {
			child = binary.BigEndian.Uint32(f.page[f.hdr+8:])
		} else {
			ptr := f.hdr + 12 + 2*f.next
			off := int(binary.BigEndian.Uint16(f.page[ptr:]))
			if off < f.hdr+12 || off+4 > s.p.usable {
				return s.fail(&Corrupt{f.pgno, "cell pointer out of the page"})
			}
			child = binary.BigEndian.Uint32(f.page[off:])
		}
		f.next++
		if err := s.descend(child); err != nil {
			return s.fail(err)
		}
	}
}

// descend reads page n and goes down its left-most path to a leaf.
func (s *Scanner) descend(n uint32) error {
	for {
		s.visited++
		if s.visited > s.p.pages {
			return &Corrupt{n, "the B-tree loops"}
		}
		pg, err := s.p.page(n)
		if err != nil {
			return err
		}
		hdr := 0
		if n == 1 {
			hdr = 100
		}
		cells := int(binary.BigEndian.Uint16(pg[hdr+3:]))
		switch pg[hdr] {
		case leafTable:
			if hdr+8+2*cells > s.p.usable {
				return &Corrupt{n, "too many cells for the page"}
			}
			s.leaf, s.leafNo, s.leafHdr, s.leafCells, s.cell = pg, n, hdr, cells, 0
			return nil
		case interiorTable:
			if len(s.stack) >= maxDepth {
				return &Corrupt{n, "the B-tree is too deep"}
			}
			if hdr+12+2*cells > s.p.usable {
				return &Corrupt{n, "too many cells for the page"}
			}
			var f *frame
			if len(s.stack) < cap(s.stack) {
				s.stack = s.stack[:len(s.stack)+1]
				f = &s.stack[len(s.stack)-1]
			} else {
				s.stack = append(s.stack, frame{})
				f = &s.stack[len(s.stack)-1]
			}
			f.page = append(f.page[:0], pg...)
			f.hdr, f.cells, f.next, f.pgno = hdr, cells, 0, n
			// Continue into the first child right away.
			if cells == 0 {
				f.next = 1
				n = binary.BigEndian.Uint32(f.page[hdr+8:])
				continue
			}
			off := int(binary.BigEndian.Uint16(f.page[hdr+12:]))
			if off < hdr+12 || off+4 > s.p.usable {
				return &Corrupt{n, "cell pointer out of the page"}
			}
			f.next = 1
			n = binary.BigEndian.Uint32(f.page[off:])
		default:
			return &Corrupt{n, fmt.Sprintf("page type %#x where a table B-tree page belongs", pg[hdr])}
		}
	}
}

// varint decodes an SQLite varint from b: value and length, 0 when b ends
// first.
func varint(b []byte) (uint64, int) {
	var v uint64
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		c := b[i]
		v = v<<7 | uint64(c&0x7f)
		if c < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}

func (s *Scanner) decodeCell() error {
	pg, n := s.leaf, s.leafNo
	ptr := s.leafHdr + 8 + 2*s.cell
	off := int(binary.BigEndian.Uint16(pg[ptr:]))
	if off < s.leafHdr+8 || off >= s.p.usable {
		return &Corrupt{n, "cell pointer out of the page"}
	}
	c := pg[off:s.p.usable]
	size, k := varint(c)
	if k == 0 {
		return &Corrupt{n, "cell cut"}
	}
	c = c[k:]
	rowid, k := varint(c)
	if k == 0 {
		return &Corrupt{n, "cell cut"}
	}
	c = c[k:]
	s.rowid = int64(rowid)
	u := uint64(s.p.usable)
	if size > uint64(s.p.pages)*u {
		return &Corrupt{n, "record larger than the file"}
	}
	// The part of the record stored on the leaf (file format §1.6).
	local := size
	if x := u - 35; size > x {
		m := (u-12)*32/255 - 23
		local = m + (size-m)%(u-4)
		if local > x {
			local = m
		}
	}
	if uint64(len(c)) < local || (local < size && uint64(len(c)) < local+4) {
		return &Corrupt{n, "cell runs past the page"}
	}
	rec := c[:local]
	if local < size {
		var err error
		if rec, err = s.overflow(c[:local], binary.BigEndian.Uint32(c[local:]), int(size)); err != nil {
			return err
		}
	}
	return s.decodeRecord(rec, n)
}

// overflow assembles a record whose tail lies in a chain of overflow pages.
func (s *Scanner) overflow(local []byte, next uint32, size int) ([]byte, error) {
	s.payload = append(s.payload[:0], local...)
	if s.ovPage == nil {
		s.ovPage = make([]byte, s.p.pageSize)
	}
	for pages := uint32(0); len(s.payload) < size; pages++ {
		if pages >= s.p.pages {
			return nil, &Corrupt{next, "overflow chain loops"}
		}
		if err := s.p.readPage(next, s.ovPage); err != nil {
			return nil, err
		}
		chunk := s.ovPage[4:s.p.usable]
		chunk = chunk[:min(len(chunk), size-len(s.payload))]
		s.payload = append(s.payload, chunk...)
		next = binary.BigEndian.Uint32(s.ovPage)
		if next == 0 && len(s.payload) < size {
			return nil, &Corrupt{0, "overflow chain ends early"}
		}
	}
	return s.payload, nil
}

// serialLen is the byte length of a value of serial type t.
func serialLen(t uint64) uint64 {
	switch {
	case t <= 4:
		return [...]uint64{0, 1, 2, 3, 4}[t]
	case t == 5:
		return 6
	case t == 6 || t == 7:
		return 8
	case t < 12:
		return 0
	}
	return (t - 12) / 2
}

func (s *Scanner) decodeRecord(rec []byte, pgno uint32) error {
	hsize, k := varint(rec)
	if k == 0 || hsize > uint64(len(rec)) || hsize < uint64(k) {
		return &Corrupt{pgno, "record header out of the record"}
	}
	hdr := rec[k:hsize]
	data := rec[hsize:]
	for i := range s.cols {
		s.null[i], s.vals[i], s.text[i] = true, 0, nil
	}
	// One pass over the serial types, to the last column asked for; a
	// record shorter than that (written before an ALTER TABLE ADD COLUMN)
	// leaves the rest NULL.
	var off uint64
	for idx := 0; idx <= s.maxCol && len(hdr) > 0; idx++ {
		t := uint64(hdr[0])
		if t < 0x80 {
			hdr = hdr[1:]
		} else {
			t, k = varint(hdr)
			if k == 0 {
				return &Corrupt{pgno, "record header cut"}
			}
			hdr = hdr[k:]
		}
		l := serialLen(t)
		if t == 10 || t == 11 || off+l > uint64(len(data)) {
			return &Corrupt{pgno, "value runs past the record"}
		}
		if i := s.want[idx]; i >= 0 && t != 0 {
			v := data[off : off+l]
			switch c := s.cols[i]; {
			case c.Kind == Int && t <= 6:
				s.vals[i] = beInt(v)
			case c.Kind == Int && t == 8:
				s.vals[i] = 0
			case c.Kind == Int && t == 9:
				s.vals[i] = 1
			case c.Kind == Text && t >= 12:
				s.text[i] = v
			default:
				return &Unsupported{fmt.Sprintf("column %d holds a value of serial type %d", c.Index, t)}
			}
			s.null[i] = false
		}
		off += l
	}
	// SQLite's own check once it has read a whole header: the values
	// fill the record exactly.
	if len(hdr) == 0 && off != uint64(len(data)) {
		return &Corrupt{pgno, "record values do not fill the record"}
	}
	return nil
}

// beInt decodes a big-endian two's-complement integer of 1 to 8 bytes.
func beInt(b []byte) int64 {
	var v int64
	if len(b) > 0 && b[0]&0x80 != 0 {
		v = -1
	}
	for _, c := range b {
		v = v<<8 | int64(c)
	}
	return v
}
