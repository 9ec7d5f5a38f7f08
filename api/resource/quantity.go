package resource

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Format says how a Quantity prints: with a decimal SI suffix (1k, 100m),
// a binary one (8Gi) or a decimal exponent (1e3). A parsed quantity keeps
// the format of its suffix.
type Format string

// The three formats.
const (
	// DecimalExponent prints e<n> with n a multiple of 3: 1e3, 12e6.
	DecimalExponent Format = "DecimalExponent"
	// BinarySI prints Ki, Mi, Gi... (powers of 1024).
	BinarySI Format = "BinarySI"
	// DecimalSI prints m, k, M, G... (powers of 1000).
	DecimalSI Format = "DecimalSI"
)

// splitREString is the grammar of a quantity, quoted in ErrFormatWrong.
const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

// The parse errors, worded as Kubernetes words them.
var (
	// ErrFormatWrong means the string does not follow the grammar.
	ErrFormatWrong = errors.New("quantities must match the regular expression '" + splitREString + "'")
	// ErrNumeric means the number part could not be used.
	ErrNumeric = errors.New("unable to parse numeric part of quantity")
	// ErrSuffix means the suffix is not one of the known ones.
	ErrSuffix = errors.New("unable to parse quantity's suffix")
)

// Quantity is a fixed-point number: an int64 mantissa times a power of
// ten, plus the Format it prints in. It is a value type: copying it copies
// the number. The representation is kept normalized, so two quantities
// holding the same number in the same format are == (and reflect.DeepEqual),
// which Kubernetes' Quantity does not promise; use Cmp or Equal to compare
// numbers across formats. It marshals to JSON as its canonical string and unmarshals
// from a string or a number.
type Quantity struct {
	value int64 // mantissa
	scale int32 // the number is value * 10^scale
	// Format is how the quantity prints.
	Format Format
}

// NewQuantity returns value in the given format, as resource.NewQuantity.
func NewQuantity(value int64, format Format) *Quantity {
	return newQuantity(value, 0, format)
}

// NewMilliQuantity returns value/1000 in the given format.
func NewMilliQuantity(milliValue int64, format Format) *Quantity {
	return newQuantity(milliValue, -3, format)
}

// NewScaledQuantity returns value * 10^scale in DecimalSI.
func NewScaledQuantity(value int64, scale int32) *Quantity {
	return newQuantity(value, scale, DecimalSI)
}

// newQuantity normalizes the representation (trailing zeros move into the
// exponent) so that a constructed quantity equals, field for field, the
// parsed one: NewQuantity(1000, DecimalSI) == MustParse("1k").
func newQuantity(value int64, scale int32, format Format) *Quantity {
	q := &Quantity{Format: format}
	if v, s, ok := fromBig(big.NewInt(value), int64(scale)); ok {
		q.value, q.scale = v, s
	} else {
		q.value, q.scale = value, scale
	}
	return q
}

// MustParse parses s and panics on error; for constants in code and tests.
func MustParse(s string) Quantity {
	q, err := ParseQuantity(s)
	if err != nil {
		panic(fmt.Errorf("cannot parse '%v': %v", s, err))
	}
	return q
}

// Parse is ParseQuantity under a shorter name.
func Parse(s string) (Quantity, error) { return ParseQuantity(s) }

// ParseQuantity reads a quantity such as "100m", "1.5Gi", "-2", "1e3".
// Values finer than a nano unit are rounded up (away from zero) to 1n, and
// binary quantities are capped at 2^63-1, as in Kubernetes.
func ParseQuantity(str string) (Quantity, error) {
	if len(str) == 0 {
		return Quantity{}, ErrFormatWrong
	}
	if str == "0" {
		return Quantity{Format: DecimalSI}, nil
	}
	positive, num, denom, suffix, err := parseQuantityString(str)
	if err != nil {
		return Quantity{}, err
	}
	base, exponent, format, ok := interpretSuffix(suffix)
	if !ok {
		return Quantity{}, ErrSuffix
	}

	mant, ok := new(big.Int).SetString(num+denom, 10)
	if !ok {
		return Quantity{}, ErrNumeric
	}
	scale := -int64(len(denom))
	if base == 10 {
		scale += int64(exponent)
	} else {
		mant.Lsh(mant, uint(exponent))
	}

	// Round non-zero values up to the smallest unit, 1n: whoever asks for
	// some of a resource should get some, however small the request.
	if mant.Sign() != 0 && scale < -9 {
		shift := -9 - scale
		if int64(len(mant.String())) <= shift {
			mant.SetInt64(1)
		} else {
			divUp(mant, pow10(shift))
		}
		scale = -9
	}
	if format == BinarySI {
		if compareBig(mant, scale, big.NewInt(math.MaxInt64), 0) > 0 {
			mant.SetInt64(math.MaxInt64)
			scale = 0
		}
		// A binary suffix on a value below one would print as a fraction
		// of Ki; print it as decimal instead.
		if mant.Sign() > 0 && compareBig(mant, scale, big.NewInt(1), 0) < 0 {
			format = DecimalSI
		}
	}
	if !positive {
		mant.Neg(mant)
	}
	v, s, ok := fromBig(mant, scale)
	// Keep room below the int32 limit so the printed exponent parses too.
	if !ok || s > math.MaxInt32-40 {
		return Quantity{}, ErrNumeric
	}
	return Quantity{value: v, scale: s, Format: format}, nil
}

// parseQuantityString splits str into sign, integer digits, fraction
// digits and suffix, following Kubernetes' hand-written scanner (so "1.",
// ".5" and "-" are accepted, the last as zero).
func parseQuantityString(str string) (positive bool, num, denom, suffix string, err error) {
	positive = true
	pos, end := 0, len(str)
	switch str[0] {
	case '-':
		positive = false
		pos++
	case '+':
		pos++
	}
	// Leading zeros carry no value.
	for pos < end && str[pos] == '0' {
		pos++
	}
	if pos >= end {
		return positive, "0", "", "", nil
	}
	start := pos
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	num = str[start:pos]
	if num == "" {
		num = "0"
	}
	if pos < end && str[pos] == '.' {
		pos++
		start = pos
		for pos < end && isDigit(str[pos]) {
			pos++
		}
		denom = str[start:pos]
	}
	suffixStart := pos
	for pos < end && strings.IndexByte("eEinumkKMGTP", str[pos]) >= 0 {
		pos++
	}
	if pos < end && (str[pos] == '-' || str[pos] == '+') {
		pos++
	}
	for pos < end && isDigit(str[pos]) {
		pos++
	}
	if pos < end {
		return false, "", "", "", ErrFormatWrong
	}
	return positive, num, denom, str[suffixStart:], nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decimalSuffixes maps the decimal SI suffixes to powers of ten.
func decimalSuffix(s string) (int32, bool) {
	switch s {
	case "n":
		return -9, true
	case "u":
		return -6, true
	case "m":
		return -3, true
	case "":
		return 0, true
	case "k":
		return 3, true
	case "M":
		return 6, true
	case "G":
		return 9, true
	case "T":
		return 12, true
	case "P":
		return 15, true
	case "E":
		return 18, true
	}
	return 0, false
}

// binarySuffix maps the binary suffixes to powers of two.
func binarySuffix(s string) (int32, bool) {
	switch s {
	case "Ki":
		return 10, true
	case "Mi":
		return 20, true
	case "Gi":
		return 30, true
	case "Ti":
		return 40, true
	case "Pi":
		return 50, true
	case "Ei":
		return 60, true
	}
	return 0, false
}

// interpretSuffix gives the base, exponent and format a suffix stands for.
func interpretSuffix(s string) (base, exponent int32, format Format, ok bool) {
	if e, ok := decimalSuffix(s); ok {
		return 10, e, DecimalSI, true
	}
	if e, ok := binarySuffix(s); ok {
		return 2, e, BinarySI, true
	}
	if len(s) > 1 && (s[0] == 'e' || s[0] == 'E') {
		e, err := strconv.ParseInt(s[1:], 10, 32)
		if err != nil {
			return 0, 0, DecimalExponent, false
		}
		return 10, int32(e), DecimalExponent, true
	}
	return 0, 0, DecimalExponent, false
}

func pow10(n int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil)
}

// divUp divides the non-negative m by d in place, rounding up.
func divUp(m, d *big.Int) {
	var r big.Int
	m.QuoRem(m, d, &r)
	if r.Sign() != 0 {
		m.Add(m, big.NewInt(1))
	}
}

// fromBig fits m * 10^scale into an int64 mantissa: trailing zeros move
// into the exponent, and if that is not enough the last digits are rounded
// away from zero. ok is false when the exponent leaves the int32 range.
func fromBig(m *big.Int, scale int64) (int64, int32, bool) {
	m = new(big.Int).Set(m)
	neg := m.Sign() < 0
	m.Abs(m)
	ten := big.NewInt(10)
	var r big.Int
	// Trailing zeros go into the exponent, so that equal numbers get
	// equal representations.
	for m.Sign() != 0 {
		var q big.Int
		q.QuoRem(m, ten, &r)
		if r.Sign() != 0 || scale >= math.MaxInt32 {
			break
		}
		m = &q
		scale++
	}
	for !m.IsInt64() {
		var q big.Int
		q.QuoRem(m, ten, &r)
		if r.Sign() != 0 {
			// Cut the digits that do not fit in one step, rounding up.
			excess := int64(len(m.String()) - 18)
			divUp(m, pow10(excess))
			scale += excess
			continue
		}
		m = &q
		scale++
	}
	if m.Sign() == 0 {
		scale = 0
	}
	if scale > math.MaxInt32 || scale < math.MinInt32 {
		return 0, 0, false
	}
	v := m.Int64()
	if neg {
		v = -v
	}
	return v, int32(scale), true
}

// compareBig compares a*10^as with b*10^bs.
func compareBig(a *big.Int, as int64, b *big.Int, bs int64) int {
	if a.Sign() != b.Sign() {
		if a.Sign() < b.Sign() {
			return -1
		}
		return 1
	}
	if a.Sign() == 0 {
		return 0
	}
	// Compare orders of magnitude first so that wildly different
	// exponents never build huge numbers.
	ma := int64(len(new(big.Int).Abs(a).String())) + as
	mb := int64(len(new(big.Int).Abs(b).String())) + bs
	if ma != mb {
		c := 1
		if ma < mb {
			c = -1
		}
		if a.Sign() < 0 {
			c = -c
		}
		return c
	}
	x, y := new(big.Int).Set(a), new(big.Int).Set(b)
	if as > bs {
		x.Mul(x, pow10(as-bs))
	} else if bs > as {
		y.Mul(y, pow10(bs-as))
	}
	return x.Cmp(y)
}

func (q Quantity) big() *big.Int { return big.NewInt(q.value) }

// IsZero reports whether the quantity is zero.
func (q Quantity) IsZero() bool { return q.value == 0 }

// Sign returns -1, 0 or 1.
func (q Quantity) Sign() int {
	switch {
	case q.value < 0:
		return -1
	case q.value > 0:
		return 1
	}
	return 0
}

// Cmp returns -1, 0 or 1 as q is less than, equal to or greater than y.
func (q Quantity) Cmp(y Quantity) int {
	return compareBig(q.big(), int64(q.scale), y.big(), int64(y.scale))
}

// CmpInt64 compares q with an integer.
func (q Quantity) CmpInt64(y int64) int {
	return compareBig(q.big(), int64(q.scale), big.NewInt(y), 0)
}

// Equal reports whether q and y are the same number, whatever their format.
func (q Quantity) Equal(y Quantity) bool { return q.Cmp(y) == 0 }

// Add adds y to q. A zero q takes y's format, as in Kubernetes, so that a
// sum started from a zero Quantity prints like its terms.
func (q *Quantity) Add(y Quantity) {
	if q.value == 0 {
		q.Format = y.Format
	}
	q.add(y.value, y.scale)
}

// Sub subtracts y from q. A zero q takes y's format.
func (q *Quantity) Sub(y Quantity) {
	if q.value == 0 {
		q.Format = y.Format
	}
	// Negating math.MinInt64 overflows, so subtract through big.Int.
	q.addBig(new(big.Int).Neg(y.big()), int64(y.scale))
}

// Neg negates q.
func (q *Quantity) Neg() {
	// Through big.Int because -math.MinInt64 does not fit an int64.
	if v, sc, ok := fromBig(new(big.Int).Neg(q.big()), int64(q.scale)); ok {
		q.value, q.scale = v, sc
	}
}

func (q *Quantity) add(v int64, s int32) { q.addBig(big.NewInt(v), int64(s)) }

// addBig sets q to q + m*10^s, exactly when the exponents are close and
// otherwise keeping the larger term (the smaller cannot show in 19 digits).
func (q *Quantity) addBig(m *big.Int, s int64) {
	if m.Sign() == 0 {
		return
	}
	a, as := q.big(), int64(q.scale)
	if a.Sign() == 0 {
		v, sc, ok := fromBig(m, s)
		if ok {
			q.value, q.scale = v, sc
		}
		return
	}
	diff := as - s
	if diff < 0 {
		diff = -diff
	}
	if diff > 1000 {
		if s > as {
			if v, sc, ok := fromBig(m, s); ok {
				q.value, q.scale = v, sc
			}
		}
		return
	}
	lo := min(as, s)
	x := new(big.Int).Mul(a, pow10(as-lo))
	y := new(big.Int).Mul(m, pow10(s-lo))
	x.Add(x, y)
	if v, sc, ok := fromBig(x, lo); ok {
		q.value, q.scale = v, sc
	}
}

// ScaledValue returns ceil(q / 10^scale), rounding away from zero, and
// saturating at the int64 limits.
func (q Quantity) ScaledValue(scale int32) int64 {
	m := q.big()
	d := int64(q.scale) - int64(scale)
	if d >= 0 {
		if d > 40 {
			if m.Sign() > 0 {
				return math.MaxInt64
			} else if m.Sign() < 0 {
				return math.MinInt64
			}
			return 0
		}
		m.Mul(m, pow10(d))
	} else {
		neg := m.Sign() < 0
		m.Abs(m)
		if -d > 40 {
			if m.Sign() != 0 {
				m.SetInt64(1)
			}
		} else {
			divUp(m, pow10(-d))
		}
		if neg {
			m.Neg(m)
		}
	}
	if m.IsInt64() {
		return m.Int64()
	}
	if m.Sign() > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

// Value returns q rounded up (away from zero) to an integer.
func (q Quantity) Value() int64 { return q.ScaledValue(0) }

// MilliValue returns q*1000 rounded up (away from zero).
func (q Quantity) MilliValue() int64 { return q.ScaledValue(-3) }

// AsInt64 returns q as an integer if it is one and fits.
func (q Quantity) AsInt64() (int64, bool) {
	m := q.big()
	if q.scale >= 0 {
		if q.scale > 40 && q.value != 0 {
			return 0, false
		}
		m.Mul(m, pow10(int64(q.scale)))
	} else {
		if q.scale < -40 && q.value != 0 {
			return 0, false
		}
		var r big.Int
		m.QuoRem(m, pow10(-int64(q.scale)), &r)
		if r.Sign() != 0 {
			return 0, false
		}
	}
	if !m.IsInt64() {
		return 0, false
	}
	return m.Int64(), true
}

// AsApproximateFloat64 returns q as a float64, losing precision.
func (q Quantity) AsApproximateFloat64() float64 {
	return float64(q.value) * math.Pow10(int(q.scale))
}

// DeepCopy returns q; a Quantity holds no references.
func (q Quantity) DeepCopy() Quantity { return q }

// String prints the canonical form, as Kubernetes does: "0" for zero;
// binary suffixes for BinarySI integers of magnitude at least 1024 that
// are whole multiples of 1024 (else plain digits); for the decimal formats
// the mantissa without trailing zeros and an exponent that is a multiple
// of three, as a suffix (100m, 2k) or as e<n>.
func (q Quantity) String() string {
	if q.value == 0 {
		return "0"
	}
	format := q.Format
	switch format {
	case DecimalSI, DecimalExponent:
	case BinarySI:
		if q.CmpInt64(-1024) > 0 && q.CmpInt64(1024) < 0 {
			format = DecimalSI
		} else if _, ok := q.AsInt64(); !ok {
			// Not a whole number: a binary suffix would lose precision.
			format = DecimalSI
		}
	default:
		format = DecimalExponent
	}

	if format == BinarySI {
		v, _ := q.AsInt64()
		exp := 0
		for exp < 6 && v%1024 == 0 {
			v /= 1024
			exp++
		}
		suffixes := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
		return strconv.FormatInt(v, 10) + suffixes[exp]
	}

	m := q.value
	exp := int64(q.scale)
	for m%10 == 0 {
		m /= 10
		exp++
	}
	b := big.NewInt(m)
	switch ((exp % 3) + 3) % 3 {
	case 1:
		b.Mul(b, big.NewInt(10))
		exp--
	case 2:
		b.Mul(b, big.NewInt(100))
		exp -= 2
	}
	number := b.String()
	if format == DecimalSI && exp >= -9 && exp <= 18 {
		suffixes := map[int64]string{-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
		return number + suffixes[exp]
	}
	// DecimalExponent, or a decimal value beyond the SI suffixes.
	if exp == 0 {
		return number
	}
	return number + "e" + strconv.FormatInt(exp, 10)
}

// MarshalJSON writes the canonical string, quoted.
func (q Quantity) MarshalJSON() ([]byte, error) {
	return json.Marshal(q.String())
}

// UnmarshalJSON reads a quoted quantity or a bare JSON number; null gives
// zero.
func (q *Quantity) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "null" {
		*q = Quantity{}
		return nil
	}
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	parsed, err := ParseQuantity(strings.TrimSpace(s))
	if err != nil {
		return err
	}
	*q = parsed
	return nil
}
