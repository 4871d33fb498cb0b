\set r random_zipfian(1, 100, 1.5) + random_exponential(1, 10, 2) + random_gaussian(1, 10, 2.5)
\set s sqrt(abs(:r)) + ln(2) * exp(1) / pow(2, 3) + pi() + int(2.7) + double(3) + mod(7, 3) + least(1, 2) - (1 << 3) >> 1 & 7 | 8
\startpipeline
select :r;
\syncpipeline
select 2 \gset p_
\endpipeline
