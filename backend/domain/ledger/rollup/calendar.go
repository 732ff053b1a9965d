package rollup

import "time"

// DayOf is t's day bucket, days since 1970-01-01 in UTC; MonthOf and
// YearOf are its month (year*12 + month-1) and year buckets. Storage
// computes the same in SQL from a row's confirmation time.
func DayOf(t time.Time) int64 {
	d := t.Unix() / 86400
	if t.Unix()%86400 < 0 {
		d--
	}
	return d
}

// MonthOf is t's month bucket (DayOf).
func MonthOf(t time.Time) int64 {
	t = t.UTC()
	return int64(t.Year())*12 + int64(t.Month()) - 1
}

// YearOf is t's year bucket (DayOf).
func YearOf(t time.Time) int64 { return int64(t.UTC().Year()) }

// DayStart is the first instant of day bucket d.
func DayStart(d int64) time.Time { return time.Unix(d*86400, 0).UTC() }

// MonthStart is the first instant of month bucket m (DayStart).
func MonthStart(m int64) time.Time {
	y, mm := m/12, m%12
	if mm < 0 {
		y, mm = y-1, mm+12
	}
	return time.Date(int(y), time.Month(mm+1), 1, 0, 0, 0, 0, time.UTC)
}

// YearStart is the first instant of year bucket y (DayStart).
func YearStart(y int64) time.Time { return time.Date(int(y), 1, 1, 0, 0, 0, 0, time.UTC) }
