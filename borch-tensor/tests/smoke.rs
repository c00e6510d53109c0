use borch_tensor::{DType, Tensor, arange, default_device, zeros};

#[test]
fn add_broadcast_and_views() {
    let dev = default_device().unwrap();
    eprintln!("adapter: {}", dev.adapter_info());
    let a = Tensor::new([[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]).unwrap();
    let b = Tensor::new([10.0f32, 20.0, 30.0]).unwrap();
    let c = a.add(&b).unwrap();
    assert_eq!(
        c.to_vec_blocking::<f32>().unwrap(),
        vec![11., 22., 33., 14., 25., 36.]
    );
    let t = a.t().unwrap().mul(2).unwrap();
    assert_eq!(t.shape(), &[3, 2]);
    assert_eq!(
        t.to_vec_blocking::<f32>().unwrap(),
        vec![2., 8., 4., 10., 6., 12.]
    );
    let i = arange(0, 6, 1).unwrap();
    assert_eq!(i.dtype(), DType::Int64);
    let f = i.add(0.5).unwrap();
    assert_eq!(f.dtype(), DType::Float32);
    assert_eq!(
        f.to_vec_blocking::<f32>().unwrap(),
        vec![0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    );
    let z = zeros(&[2, 2], DType::Bool).unwrap();
    assert_eq!(z.to_vec_blocking::<bool>().unwrap(), vec![false; 4]);
    let s = a.slice(1, Some(0), None, 2).unwrap().exp().unwrap();
    assert_eq!(s.shape(), &[2, 2]);
    let e = a.add(Tensor::new([1.0f32, 2.0]).unwrap()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    );
}
